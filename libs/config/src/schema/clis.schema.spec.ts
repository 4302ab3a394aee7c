import { clisSchema } from './clis.schema';

describe('clis: config', () => {
  it('fills the defaults: generic kind, no extra people, 1.5 s of quiet for done, a 5 minute watchdog', () => {
    expect(clisSchema.parse({ mycli: { command: 'mycli', allowed_dirs: ['/srv/app'] } })).toEqual({
      mycli: {
        kind: 'generic',
        mode: 'tmux',
        command: 'mycli',
        args: [],
        env: {},
        allowed_dirs: ['/srv/app'],
        allow_from: [],
        done_after: 1500,
        watchdog: 300_000,
      },
    });
  });

  it('reads durations as written', () => {
    const parsed = clisSchema.parse({ c: { command: 'c', allowed_dirs: ['/a'], done_after: '800ms', watchdog: '2m' } });
    expect(parsed.c).toMatchObject({ done_after: 800, watchdog: 120_000 });
  });

  it('refuses a CLI without working directories, or with a relative one', () => {
    expect(clisSchema.safeParse({ c: { command: 'c', allowed_dirs: [] } }).success).toBe(false);
    expect(clisSchema.safeParse({ c: { command: 'c', allowed_dirs: ['src'] } }).success).toBe(false);
  });

  it('refuses kinds and modes it does not know, and names that cannot be part of a tmux session name', () => {
    expect(clisSchema.safeParse({ c: { kind: 'aider', command: 'aider', allowed_dirs: ['/a'] } }).success).toBe(false);
    expect(clisSchema.safeParse({ c: { kind: 'gemini', command: 'gemini', allowed_dirs: ['/a'], mode: 'pty' } }).success).toBe(false);
    expect(clisSchema.parse({ c: { kind: 'gemini', command: 'gemini', allowed_dirs: ['/a'] } }).c.mode).toBe('tmux');
    expect(clisSchema.safeParse({ c: { kind: 'claude-code', command: 'claude', allowed_dirs: ['/a'] } }).success).toBe(true);
    expect(clisSchema.safeParse({ 'my.cli': { command: 'c', allowed_dirs: ['/a'] } }).success).toBe(false);
  });

  it('takes an environment for the CLI and refuses names a shell could not export', () => {
    const parsed = clisSchema.parse({ c: { command: 'c', allowed_dirs: ['/a'], env: { ANTHROPIC_BASE_URL: 'http://127.0.0.1:1' } } });
    expect(parsed.c.env).toEqual({ ANTHROPIC_BASE_URL: 'http://127.0.0.1:1' });
    expect(clisSchema.safeParse({ c: { command: 'c', allowed_dirs: ['/a'], env: { 'BAD-NAME': 'x' } } }).success).toBe(false);
  });

  it('is empty when absent', () => {
    expect(clisSchema.parse(undefined)).toEqual({});
  });
});
