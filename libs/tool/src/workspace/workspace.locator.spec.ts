import { mkdirSync, mkdtempSync, realpathSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { configSchema, ConfigService } from '@nestclaw/config';
import { WorkspaceLocator } from './workspace.locator';

describe('WorkspaceLocator', () => {
  const home = realpathSync(mkdtempSync(join(tmpdir(), 'ws-home-')));
  const locator = new WorkspaceLocator({ home } as ConfigService);
  const ctx = { sessionId: 'sess-1', turnId: 't', agentId: 'default' };
  const agent = (workspace: Record<string, string>) => configSchema.parse({ agents: { default: { workspace } } }).agents.default;
  afterAll(() => rmSync(home, { recursive: true, force: true }));

  it('defaults to one rw workspace per agent, shared by its sessions', () => {
    const a = locator.forContext(ctx, agent({}));
    expect(a).toEqual({ hostPath: join(home, 'workspaces', 'agents', 'default'), access: 'rw' });
    expect(locator.forContext({ ...ctx, sessionId: 'sess-2' }, agent({}))).toEqual(a);
  });

  it('scopes by session or shares one for everyone', () => {
    expect(locator.forContext(ctx, agent({ scope: 'session' })).hostPath).toBe(join(home, 'workspaces', 'sessions', 'sess-1'));
    expect(locator.forContext(ctx, agent({ scope: 'shared', access: 'ro' }))).toEqual({
      hostPath: join(home, 'workspaces', 'shared'),
      access: 'ro',
    });
  });

  it('keeps odd ids from escaping the workspaces directory', () => {
    expect(locator.forContext({ ...ctx, sessionId: '../../etc' }, agent({ scope: 'session' })).hostPath).toBe(
      join(home, 'workspaces', 'sessions', '.._.._etc'),
    );
  });

  // Ownership and modes only change as root (which CI is): the two cases below each run in one of
  // the two worlds, and the skipped one shows in the runner's summary.
  const asRoot = process.getuid?.() === 0 ? it : it.skip;
  const asUser = process.getuid?.() === 0 ? it.skip : it;

  asRoot(
    'as root: gives the workspace to the sandbox uid, makes the path traversable (not listable) and closes the rest of the home',
    () => {
      writeFileSync(join(home, 'gateway.db'), 'conversations', { mode: 0o644 });
      mkdirSync(join(home, 'pgdata'), { mode: 0o755 });
      const fresh = new WorkspaceLocator({ home } as ConfigService);
      fresh.forContext(ctx, agent({}));
      expect(statSync(home).mode & 0o007).toBe(0o001);
      expect(statSync(join(home, 'workspaces', 'agents', 'default')).uid).toBe(65534);
      expect(statSync(join(home, 'gateway.db')).mode & 0o007).toBe(0);
      expect(statSync(join(home, 'pgdata')).mode & 0o007).toBe(0);
    },
  );

  asUser('as an ordinary user: leaves ownership and modes alone', () => {
    const before = statSync(home).mode;
    locator.forContext(ctx, agent({}));
    expect(statSync(home).mode).toBe(before);
    expect(statSync(join(home, 'workspaces', 'agents', 'default')).uid).toBe(process.getuid?.());
  });
});
