import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { evaluateCommand, ExecPolicyConfig } from './exec-policy';

const allowlist: ExecPolicyConfig = { security: 'allowlist', allow: [] };
const withEcho: ExecPolicyConfig = { security: 'allowlist', allow: ['echo', 'cat'] };

type Row = [command: string, verdict: 'allow' | 'refuse', reason: string];

/** [command, expected verdict, the reason (substring) or the programs allowed]. */
const cases: Row[] = [
  // allowed pipelines of safe bins
  ['wc -l', 'allow', 'wc'],
  ['grep foo notes.txt', 'allow', 'grep'],
  ['grep -i "hello world" notes.txt', 'allow', 'grep'],
  ["grep 'a|b' notes.txt", 'allow', 'grep'],
  ['grep foo notes.txt | wc -l', 'allow', 'grep,wc'],
  ['cut -d, -f1 data.csv | sort | uniq -c | sort -rn | head -5', 'allow', 'cut,sort,uniq,sort,head'],
  ["jq '.items[] | .name' data.json", 'allow', 'jq'],
  ['jq -r ".a" data.json | tr a-z A-Z', 'allow', 'jq,tr'],
  ['tail -n 20 log.txt', 'allow', 'tail'],
  ["tr -d '\\r' < x", 'refuse', 'redirections'],
  ["grep 'x;y' file", 'allow', 'grep'],
  ["grep '$(whoami)' file", 'allow', 'grep'],
  ['grep "a&&b" file', 'allow', 'grep'],
  ["'grep' foo file", 'allow', 'grep'],
  ["g''rep foo file", 'allow', 'grep'],
  ["grep 'café' menu.txt", 'allow', 'grep'],
  ['  sort   data.txt  ', 'allow', 'sort'],
  // programs not on the allowlist
  ['rm -rf /', 'refuse', "'rm' is not on the allowlist"],
  ['curl http://example.com', 'refuse', "'curl' is not on the allowlist"],
  ['grep foo file | sh', 'refuse', "'sh' is not on the allowlist"],
  ['grep foo file | xargs rm', 'refuse', "'xargs' is not on the allowlist"],
  ['sh -c "grep x"', 'refuse', "'sh' is not on the allowlist"],
  ['env grep x', 'refuse', "'env' is not on the allowlist"],
  ['eval grep x', 'refuse', "'eval' is not on the allowlist"],
  ['exec grep x', 'refuse', "'exec' is not on the allowlist"],
  ['command grep x', 'refuse', "'command' is not on the allowlist"],
  ['GREP x file', 'refuse', "'GREP' is not on the allowlist"],
  ['/usr/bin/grep x file', 'refuse', 'not given by path'],
  ['./grep x', 'refuse', 'not given by path'],
  ['echo hi', 'refuse', "'echo' is not on the allowlist"],
  // chaining
  ['grep x file && rm file', 'refuse', "'&&' chains commands"],
  ['grep x file || rm file', 'refuse', "'||' chains commands"],
  ['grep x file; rm file', 'refuse', "';' chains commands"],
  ['grep x file & rm file', 'refuse', "'&' runs a command in the background"],
  ['grep x file &', 'refuse', "'&' runs a command in the background"],
  ['grep x file\nrm file', 'refuse', 'newline'],
  ['grep x file\r\nrm file', 'refuse', 'newline'],
  ['grep x file |& wc', 'refuse', "'|&'"],
  // substitutions and expansions
  ['grep $(whoami) file', 'refuse', 'command substitution $(…)'],
  ['grep `whoami` file', 'refuse', 'backtick command substitution'],
  ['grep "$(whoami)" file', 'refuse', 'command substitution $(…) inside double quotes'],
  ['grep "`id`" file', 'refuse', 'backtick command substitution inside double quotes'],
  ['grep $HOME file', 'refuse', 'variable expansion'],
  ['grep "$HOME" file', 'refuse', 'variable expansion ($NAME) inside double quotes'],
  ['grep ${PATH} file', 'refuse', 'parameter expansion'],
  ['grep $((1+2)) file', 'refuse', 'arithmetic expansion'],
  ["grep $'\\x41' file", 'refuse', 'ANSI-C'],
  ['wc <(grep x file)', 'refuse', 'process substitution'],
  // redirections
  ['grep x file > out.txt', 'refuse', 'redirections'],
  ['grep x file >> out.txt', 'refuse', 'redirections'],
  ['wc -l < /etc/passwd', 'refuse', 'redirections'],
  ['grep x file 2>&1', 'refuse', 'redirections'],
  ['grep x <<< word', 'refuse', 'redirections'],
  // subshells and groups
  ['(grep x file)', 'refuse', 'subshells'],
  ['{ grep x file; }', 'refuse', 'brace groups'],
  ['grep x file{1,2}', 'refuse', 'brace'],
  // env prefixes
  ['LD_PRELOAD=/tmp/x.so grep x file', 'refuse', 'environment assignment prefix'],
  ['PATH=/tmp grep x', 'refuse', 'environment assignment prefix'],
  ['grep x file | FOO=1 wc', 'refuse', 'environment assignment prefix'],
  // quoting tricks
  ['grep "unterminated', 'refuse', 'not valid shell syntax'],
  ["grep 'unterminated", 'refuse', 'not valid shell syntax'],
  ['grep a\\ b file', 'refuse', 'backslash'],
  ['gr\\ep x', 'refuse', 'backslash'],
  ['grep x file # comment', 'refuse', 'comments'],
  ['grep x *.txt', 'refuse', 'unquoted glob'],
  ['grep x file?', 'refuse', 'unquoted glob'],
  ['wc ~/secret', 'refuse', 'tilde'],
  ['! grep x file', 'refuse', "'!'"],
  ['grep x file |', 'refuse', 'not valid shell syntax'],
  ['| wc', 'refuse', 'not valid shell syntax'],
  ['', 'refuse', 'empty command'],
  // dangerous options of safe bins
  ['sort --compress-program=sh data', 'refuse', 'runs another program'],
  ['sort -o out.txt data', 'refuse', 'writes a file'],
  ['sort --output=out.txt data', 'refuse', 'writes a file'],
  // unicode look-alikes and invisible characters
  ['grep x file ｜ sh', 'refuse', 'non-ASCII character'],
  ['grep x file；rm file', 'refuse', 'non-ASCII character'],
  ['ｇrep x file', 'refuse', 'non-ASCII character'],
  ['grеp x file', 'refuse', 'non-ASCII character'],
  ['grep x file\u200b', 'refuse', 'invisible or control character U+200B'],
  ['grep x \u202efile', 'refuse', 'invisible or control character U+202E'],
  ['grep x\u0000 file', 'refuse', 'invisible or control character U+0000'],
];

describe('exec policy (allowlist)', () => {
  it('has at least 60 cases', () => {
    expect(cases.length).toBeGreaterThanOrEqual(60);
  });

  it.each(cases)('%j → %s (%s)', async (command, verdict, reason) => {
    const v = await evaluateCommand(command, allowlist);
    if (verdict === 'allow') {
      expect(v).toEqual({ allowed: true, programs: reason.split(',') });
    } else {
      expect(v.allowed).toBe(false);
      expect(v.allowed ? '' : v.reason).toContain(reason);
    }
  });
});

describe('exec policy modes', () => {
  it('adds configured programs to the safe bins', async () => {
    expect(await evaluateCommand('echo hi | wc -c', withEcho)).toEqual({ allowed: true, programs: ['echo', 'wc'] });
  });

  it('refuses everything in deny mode', async () => {
    expect(await evaluateCommand('wc -l', { security: 'deny', allow: [] })).toMatchObject({
      allowed: false,
      reason: expect.stringContaining('disabled'),
    });
  });

  it('allows any parseable command in full mode but still refuses bad syntax', async () => {
    expect((await evaluateCommand('rm -rf x && echo ok', { security: 'full', allow: [] })).allowed).toBe(true);
    expect((await evaluateCommand('echo "oops', { security: 'full', allow: [] })).allowed).toBe(false);
  });
});

describe('exec policy path arguments', () => {
  const base = realpathSync(mkdtempSync(join(tmpdir(), 'policy-paths-')));
  const ws = { hostPath: join(base, 'ws'), access: 'rw' as const };
  beforeAll(() => {
    mkdirSync(join(ws.hostPath, 'logs'), { recursive: true });
    writeFileSync(join(ws.hostPath, 'logs', 'a.log'), 'x');
    symlinkSync('/etc', join(ws.hostPath, 'etc-link'));
  });
  afterAll(() => rmSync(base, { recursive: true, force: true }));

  it.each([
    ['grep root /etc/passwd', 'argument path "/etc/passwd" is outside the workspace'],
    ['wc -l ../../secret', 'argument path "../../secret" is outside the workspace'],
    ['grep x etc-link/passwd', 'leads outside the workspace through a symlink'],
    ['grep --file=/etc/shadow x', 'argument path "/etc/shadow" is outside the workspace'],
  ])('refuses %j', async (command, reason) => {
    expect(await evaluateCommand(command, allowlist, ws)).toEqual({ allowed: false, reason: expect.stringContaining(reason) });
  });

  it('allows paths inside the workspace', async () => {
    expect(await evaluateCommand('grep x logs/a.log /workspace/logs/a.log | wc -l', allowlist, ws)).toEqual({
      allowed: true,
      programs: ['grep', 'wc'],
    });
  });
});
