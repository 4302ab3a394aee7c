import { spawn, spawnSync } from 'node:child_process';
import { appendFileSync, existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CliConfig, ConfigService } from '@nestclaw/config';
import { CliHooks } from './cli-hooks';
import { HookInstall, rootOwnedPath } from './hook-installs';

type HookSettings = { hooks: Record<string, { hooks: { command: string }[] }[]> };

describe('CliHooks', () => {
  let home: string;
  let hooks: CliHooks;
  const claude = { kind: 'claude-code' } as CliConfig;
  const gemini = { kind: 'gemini' } as CliConfig;
  const codex = { kind: 'codex' } as CliConfig;
  const events = (session = 'nestclaw-claude-1') => join(home, 'cli-hooks', session, 'events.jsonl');
  const claudeCommand = (install: HookInstall, event = 'Stop') =>
    (JSON.parse(install.args[1]) as HookSettings).hooks[event][0].hooks[0].command;
  /** What Claude Code and Gemini CLI do with a hook: run its command through a shell with the event's JSON on stdin. */
  const runShellHook = (command: string, event: unknown) => {
    const r = spawnSync('/bin/sh', ['-c', command], { input: typeof event === 'string' ? event : JSON.stringify(event) });
    expect(r.status).toBe(0);
    return r.stdout.toString();
  };

  beforeEach(() => {
    home = mkdtempSync(join(tmpdir(), 'nestclaw-hooks-'));
    hooks = new CliHooks({ home } as ConfigService);
  });
  afterEach(() => rmSync(home, { recursive: true, force: true }));

  it('installs no hooks for a generic CLI or OpenCode', () => {
    for (const kind of ['generic', 'opencode'] as const) {
      expect(hooks.prepare('nestclaw-x-1', { kind } as CliConfig)).toEqual({ args: [], env: {} });
      expect(hooks.mark('nestclaw-x-1', { kind } as CliConfig)).toBeUndefined();
    }
  });

  it("gives Claude Code a Stop hook whose report is the answer, in any language, after the message's mark", () => {
    const install = hooks.prepare('nestclaw-claude-1', claude);
    expect(install.args[0]).toBe('--settings');
    const run = (event: unknown) => expect(runShellHook(claudeCommand(install), event)).toBe('');
    run({ hook_event_name: 'Stop', last_assistant_message: 'an older answer' });
    const mark = hooks.mark('nestclaw-claude-1', claude)!;
    expect(hooks.since('nestclaw-claude-1', mark).stopped).toBeUndefined();
    run({ hook_event_name: 'Notification', message: 'Claude needs your permission to use Bash' });
    expect(hooks.since('nestclaw-claude-1', mark).stopped).toBeUndefined();
    run({ hook_event_name: 'Stop', last_assistant_message: '**完成了**: `made.txt`\n' });
    expect(hooks.since('nestclaw-claude-1', mark).stopped).toEqual({ text: '**完成了**: `made.txt`' });
  });

  it("reports the tool Claude Code is about to run as the chat's progress line, the newest one winning", () => {
    const install = hooks.prepare('nestclaw-claude-1', claude);
    const mark = hooks.mark('nestclaw-claude-1', claude)!;
    expect(hooks.since('nestclaw-claude-1', mark).progress).toBeUndefined();
    const pre = claudeCommand(install, 'PreToolUse');
    runShellHook(pre, { hook_event_name: 'PreToolUse', tool_name: 'Read', tool_input: { file_path: '/srv/app/日志.txt' } });
    runShellHook(pre, { hook_event_name: 'PreToolUse', tool_name: 'Bash', tool_input: { command: 'npm test\n  -- --ci' } });
    expect(hooks.since('nestclaw-claude-1', mark).progress).toBe('🔧 Bash: npm test -- --ci');
  });

  it("points Gemini CLI's hooks at the session: a hook in its own settings reports through NESTCLAW_CLI_HOOK_DIR, with JSON back", () => {
    const install = hooks.prepare('nestclaw-gem-1', gemini);
    expect(install.args).toEqual([]);
    // A home under /tmp is no place Gemini CLI reads system settings from: no such file is handed to it.
    expect(install.env.GEMINI_CLI_SYSTEM_SETTINGS_PATH).toBeUndefined();
    expect(install.env.NESTCLAW_CLI_HOOK_DIR).toBe(join(home, 'cli-hooks', 'nestclaw-gem-1'));
    const mark = hooks.mark('nestclaw-gem-1', gemini)!;
    expect(hooks.since('nestclaw-gem-1', 0).live).toBe(false);
    // The hook as the README has the owner add it to ~/.gemini/settings.json, run with the session's env.
    const userHook = (event: unknown) => {
      const r = spawnSync(process.execPath, [join(__dirname, '../../../../bin/nestclaw-cli-hook.js'), '--json'], {
        input: JSON.stringify(event),
        env: { PATH: process.env.PATH, ...install.env },
      });
      expect(r.status).toBe(0);
      return r.stdout.toString();
    };
    expect(userHook({ hook_event_name: 'SessionStart', source: 'startup' })).toBe('{}');
    expect(hooks.since('nestclaw-gem-1', 0).live).toBe(true);
    userHook({ hook_event_name: 'BeforeTool', tool_name: 'run_shell_command', tool_input: { command: 'ls' } });
    expect(hooks.since('nestclaw-gem-1', mark).progress).toBe('🔧 run_shell_command: ls');
    expect(hooks.since('nestclaw-gem-1', mark).stopped).toBeUndefined();
    userHook({ hook_event_name: 'AfterAgent', prompt: 'hi', prompt_response: '你好！' });
    expect(hooks.since('nestclaw-gem-1', mark).stopped).toEqual({ text: '你好！' });
  });

  it('outside a session the bridge started (no NESTCLAW_CLI_HOOK_DIR) the hook reports nothing and changes nothing', () => {
    const r = spawnSync(process.execPath, [join(__dirname, '../../../../bin/nestclaw-cli-hook.js'), '--json'], {
      input: JSON.stringify({ hook_event_name: 'AfterAgent', prompt_response: 'x' }),
      env: { PATH: process.env.PATH },
    });
    expect(r.status).toBe(0);
    expect(r.stdout.toString()).toBe('{}');
  });

  it('gives Gemini CLI system settings only where it would read them: root-owned folders no one else may write', () => {
    expect(rootOwnedPath(home)).toBe(false);
    expect(rootOwnedPath('/tmp')).toBe(false);
    expect(rootOwnedPath('/usr/bin')).toBe(statSync('/usr/bin').uid === 0 && statSync('/usr').uid === 0);
  });

  it('gives Codex a notify program that reads the event from its last argument, not from stdin', async () => {
    const install = hooks.prepare('nestclaw-codex-1', codex);
    expect(install.args[0]).toBe('-c');
    const m = /^notify=(\[.*\])$/.exec(install.args[1]);
    expect(m).not.toBeNull();
    const argv = JSON.parse(m![1]) as string[];
    const mark = hooks.mark('nestclaw-codex-1', codex)!;
    const event = { type: 'agent-turn-complete', 'turn-id': '1', 'last-assistant-message': 'Done: 3 files.' };
    // stdin stays open, as a terminal would: the program must not wait on it.
    const child = spawn(argv[0], [...argv.slice(1), JSON.stringify(event)], { stdio: ['pipe', 'ignore', 'ignore'] });
    const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
    child.stdin.destroy();
    expect(code).toBe(0);
    expect(hooks.since('nestclaw-codex-1', mark).stopped).toEqual({ text: 'Done: 3 files.' });
  });

  it('waits for a line the hook is still writing, and ignores input that is not JSON', () => {
    const install = hooks.prepare('nestclaw-claude-1', claude);
    const mark = hooks.mark('nestclaw-claude-1', claude)!;
    runShellHook(claudeCommand(install), 'not json');
    expect(existsSync(events())).toBe(false);
    appendFileSync(events(), '{"hook_event_name":"Stop","last_assis');
    expect(hooks.since('nestclaw-claude-1', mark).stopped).toBeUndefined();
    appendFileSync(events(), 'tant_message":"done"}\n');
    expect(hooks.since('nestclaw-claude-1', mark).stopped).toEqual({ text: 'done' });
  });

  it('starts each run of a session with no events, and removes them when it ends', () => {
    const install = hooks.prepare('nestclaw-claude-1', claude);
    runShellHook(claudeCommand(install), { hook_event_name: 'Stop', last_assistant_message: 'x' });
    expect(readFileSync(events(), 'utf8')).toContain('"x"');
    hooks.prepare('nestclaw-claude-1', claude);
    expect(hooks.mark('nestclaw-claude-1', claude)).toBe(0);
    hooks.remove('nestclaw-claude-1');
    expect(hooks.mark('nestclaw-claude-1', claude)).toBeUndefined();
  });
});
