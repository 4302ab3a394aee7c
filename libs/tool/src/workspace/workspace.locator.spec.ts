import { mkdtempSync, realpathSync, rmSync, statSync } from 'node:fs';
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

  it('makes the path traversable (not listable) for the sandbox uid when running as root', () => {
    if (process.getuid?.() !== 0) return;
    locator.forContext(ctx, agent({}));
    expect(statSync(home).mode & 0o005).toBe(0o001);
    expect(statSync(join(home, 'workspaces', 'agents', 'default')).uid).toBe(65534);
  });
});
