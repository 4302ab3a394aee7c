import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CORPUS, LEGITIMATE, REFUSED } from '@nestclaw/testing';
import { evaluateCommand, ExecPolicyConfig } from './exec-policy';

const allowlist: ExecPolicyConfig = { security: 'allowlist', allow: [] };

const base = realpathSync(mkdtempSync(join(tmpdir(), 'policy-corpus-')));
const ws = { hostPath: join(base, 'ws'), access: 'rw' as const };
mkdirSync(join(ws.hostPath, 'logs'), { recursive: true });
mkdirSync(join(ws.hostPath, 'src'));
for (const f of ['notes.txt', 'data.csv', 'data.json', 'patterns.txt', 'logs/app.log']) writeFileSync(join(ws.hostPath, f), 'x\n');
symlinkSync('/etc', join(ws.hostPath, 'etc-link'));
writeFileSync(join(base, 'secret'), 'secret');
afterAll(() => rmSync(base, { recursive: true, force: true }));

describe('exec policy corpus (allowlist, with a workspace)', () => {
  it('has at least 200 strings, legitimate and hostile', () => {
    expect(CORPUS.length).toBeGreaterThanOrEqual(200);
    expect(LEGITIMATE.length).toBeGreaterThanOrEqual(100);
    expect(REFUSED.length).toBeGreaterThanOrEqual(100);
  });

  it.each(LEGITIMATE)('allows %j', async (command) => {
    const v = await evaluateCommand(command, allowlist, ws);
    expect(v).toMatchObject({ allowed: true, unspecified: [] });
  });

  it.each(REFUSED)('refuses %j', async (command, _verdict, reason) => {
    const v = await evaluateCommand(command, allowlist, ws);
    expect(v).toEqual({ allowed: false, reason: expect.stringContaining(reason!) });
  });
});

describe('exec policy verdicts', () => {
  it('names the programs of an allowed pipeline', async () => {
    expect(await evaluateCommand('cut -d, -f1 data.csv | sort | uniq -c', allowlist, ws)).toEqual({
      allowed: true,
      programs: ['cut', 'sort', 'uniq'],
      unspecified: [],
    });
  });

  it('names the option it refuses, also when written as an abbreviation', async () => {
    expect(await evaluateCommand('sort --co=sh data.csv', allowlist)).toEqual({
      allowed: false,
      reason: "'sort --compress-program' (written '--co') runs another program",
    });
    expect(await evaluateCommand('grep -riQ x', allowlist)).toEqual({
      allowed: false,
      reason: "'grep -Q' (in '-riQ') is not an option this policy knows for grep",
    });
  });

  it('accepts a single command followed by a trailing newline, the way a shell reads it', async () => {
    expect(await evaluateCommand('ls\n', { security: 'allowlist', allow: ['ls'] }, ws)).toEqual({
      allowed: true,
      programs: ['ls'],
      unspecified: ['ls'],
    });
    expect(await evaluateCommand('wc -l notes.txt\n', allowlist, ws)).toEqual({ allowed: true, programs: ['wc'], unspecified: [] });
    expect(await evaluateCommand('ls\nrm -rf .\n', { security: 'allowlist', allow: ['ls', 'rm'] }, ws)).toEqual({
      allowed: false,
      reason: 'a newline separates several commands',
    });
  });

  it('lets sort keep its temporary files in a directory inside the workspace, and only there', async () => {
    expect(await evaluateCommand('sort -T . data.csv', allowlist, ws)).toEqual({ allowed: true, programs: ['sort'], unspecified: [] });
    expect(await evaluateCommand('sort -T /tmp data.csv', allowlist, ws)).toEqual({
      allowed: false,
      reason: 'argument path "/tmp" is outside the workspace',
    });
  });

  it('checks the command as given: nothing is trimmed away before the check', async () => {
    const v = await evaluateCommand('wc -l\u2029', allowlist);
    expect(v.allowed).toBe(false);
  });
});

describe('exec policy modes', () => {
  it('lets unspecified programs from tools.exec.allow run, marked so the call needs approval', async () => {
    expect(await evaluateCommand('cat notes.txt | wc -c', { security: 'allowlist', allow: ['cat'] }, ws)).toEqual({
      allowed: true,
      programs: ['cat', 'wc'],
      unspecified: ['cat'],
    });
  });

  it('checks owner-specified programs against their spec, including path operands and abbreviations', async () => {
    const policy: ExecPolicyConfig = {
      security: 'allowlist',
      allow: [],
      programs: {
        rg: {
          options: [
            { short: 'i', long: 'ignore-case', value: 'none' },
            { short: 'g', long: 'glob', value: 'text' },
            { long: 'ignore-file', value: 'path' },
          ],
          operands: 'text-then-inputs',
        },
      },
    };
    expect(await evaluateCommand("rg -i -g '*.md' TODO src", policy, ws)).toEqual({ allowed: true, programs: ['rg'], unspecified: [] });
    expect(await evaluateCommand('rg --ign TODO', policy, ws)).toMatchObject({ reason: expect.stringContaining('ambiguous') });
    expect(await evaluateCommand('rg --ignore-f=/etc/passwd TODO', policy, ws)).toMatchObject({
      reason: expect.stringContaining('outside the workspace'),
    });
    expect(await evaluateCommand('rg --pre=sh TODO', policy, ws)).toMatchObject({
      reason: "'rg --pre' is not an option this policy knows for rg",
    });
    expect(await evaluateCommand('rg TODO /etc', policy, ws)).toMatchObject({ reason: expect.stringContaining('outside the workspace') });
  });

  it('refuses everything in deny mode', async () => {
    expect(await evaluateCommand('wc -l', { security: 'deny', allow: [] })).toMatchObject({
      allowed: false,
      reason: expect.stringContaining('disabled'),
    });
  });

  it('allows any parseable command in full mode but still refuses bad syntax, odd characters and huge input', async () => {
    expect((await evaluateCommand('rm -rf x && echo ok', { security: 'full', allow: [] })).allowed).toBe(true);
    expect((await evaluateCommand('echo "oops', { security: 'full', allow: [] })).allowed).toBe(false);
    expect((await evaluateCommand('echo ok\u200b', { security: 'full', allow: [] })).allowed).toBe(false);
    expect((await evaluateCommand('echo '.repeat(3000), { security: 'full', allow: [] })).allowed).toBe(false);
  });
});
