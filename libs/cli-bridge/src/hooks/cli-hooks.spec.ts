import { spawnSync } from 'node:child_process';
import { appendFileSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CliConfig, ConfigService } from '@nestclaw/config';
import { CliHooks } from './cli-hooks';

describe('CliHooks', () => {
  let home: string;
  let hooks: CliHooks;
  const claude = { kind: 'claude-code' } as CliConfig;
  const events = () => join(home, 'cli-hooks', 'nestclaw-claude-1', 'events.jsonl');
  /** What Claude Code does with a hook: runs its command through a shell with the event's JSON on stdin. */
  const runHook = (args: string[], event: unknown) => {
    const command = (JSON.parse(args[1]) as { hooks: { Stop: { hooks: { command: string }[] }[] } }).hooks.Stop[0].hooks[0].command;
    const r = spawnSync('/bin/sh', ['-c', command], { input: JSON.stringify(event) });
    expect(r.status).toBe(0);
    expect(r.stdout.toString()).toBe('');
  };

  beforeEach(() => {
    home = mkdtempSync(join(tmpdir(), 'nestclaw-hooks-'));
    hooks = new CliHooks({ home } as ConfigService);
  });
  afterEach(() => rmSync(home, { recursive: true, force: true }));

  it('installs no hooks for a generic CLI', () => {
    expect(hooks.prepare('nestclaw-x-1', { kind: 'generic' } as CliConfig)).toEqual([]);
    expect(hooks.mark('nestclaw-x-1', { kind: 'generic' } as CliConfig)).toBeUndefined();
  });

  it("gives Claude Code a Stop hook whose report is the answer, in any language, after the message's mark", () => {
    const args = hooks.prepare('nestclaw-claude-1', claude);
    expect(args[0]).toBe('--settings');
    runHook(args, { hook_event_name: 'Stop', last_assistant_message: 'an older answer' });
    const mark = hooks.mark('nestclaw-claude-1', claude)!;
    expect(hooks.stoppedSince('nestclaw-claude-1', mark)).toBeUndefined();
    runHook(args, { hook_event_name: 'Notification', message: 'Claude needs your permission to use Bash' });
    expect(hooks.stoppedSince('nestclaw-claude-1', mark)).toBeUndefined();
    runHook(args, { hook_event_name: 'Stop', last_assistant_message: '**完成了**: `made.txt`\n' });
    expect(hooks.stoppedSince('nestclaw-claude-1', mark)).toEqual({ text: '**完成了**: `made.txt`' });
  });

  it('waits for a line the hook is still writing, and ignores input that is not JSON', () => {
    const args = hooks.prepare('nestclaw-claude-1', claude);
    const mark = hooks.mark('nestclaw-claude-1', claude)!;
    const r = spawnSync(
      '/bin/sh',
      ['-c', (JSON.parse(args[1]) as { hooks: { Stop: { hooks: { command: string }[] }[] } }).hooks.Stop[0].hooks[0].command],
      {
        input: 'not json',
      },
    );
    expect(r.status).toBe(0);
    expect(existsSync(events())).toBe(false);
    appendFileSync(events(), '{"hook_event_name":"Stop","last_assis');
    expect(hooks.stoppedSince('nestclaw-claude-1', mark)).toBeUndefined();
    appendFileSync(events(), 'tant_message":"done"}\n');
    expect(hooks.stoppedSince('nestclaw-claude-1', mark)).toEqual({ text: 'done' });
  });

  it('starts each run of a session with no events, and removes them when it ends', () => {
    const args = hooks.prepare('nestclaw-claude-1', claude);
    runHook(args, { hook_event_name: 'Stop', last_assistant_message: 'x' });
    expect(readFileSync(events(), 'utf8')).toContain('"x"');
    hooks.prepare('nestclaw-claude-1', claude);
    expect(hooks.mark('nestclaw-claude-1', claude)).toBe(0);
    hooks.remove('nestclaw-claude-1');
    expect(hooks.mark('nestclaw-claude-1', claude)).toBeUndefined();
  });
});
