import { spawnSync } from 'node:child_process';
import { chownSync, mkdirSync, mkdtempSync, realpathSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { configSchema, ConfigService } from '@nestclaw/config';
import { locateWorkspace, Located } from './locate-workspace.fixture';
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

  // Ownership and modes only change as root (which CI is). As root, the ordinary-user case runs in a
  // child process under an unprivileged uid; as an ordinary user the root case cannot run, and the
  // skip shows in the runner's summary.
  const isRoot = process.getuid?.() === 0;
  const asRoot = isRoot ? it : it.skip;

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

  it('as an ordinary user: leaves ownership and modes alone', () => {
    const userHome = realpathSync(mkdtempSync(join(tmpdir(), 'ws-user-home-')));
    try {
      const result = isRoot ? locateAsUser(userHome, USER_UID) : locateWorkspace(userHome);
      expect(result.modeBefore).toBe(result.modeAfter);
      expect(result.workspaceUid).toBe(isRoot ? USER_UID : process.getuid?.());
    } finally {
      rmSync(userHome, { recursive: true, force: true });
    }
  });
});

/** Any uid but root's and the sandbox's (65534), so a chown to either would show. */
const USER_UID = 12_345;
const ROOT = resolve(__dirname, '../../../..');

/** locateWorkspace in a child process running as `uid`, which owns the home, as a user's own gateway would. */
function locateAsUser(home: string, uid: number): Located {
  chownSync(home, uid, uid);
  const fixture = join(__dirname, 'locate-workspace.fixture.ts');
  const child = spawnSync(process.execPath, ['-r', './scripts/ts-register.js', '-r', 'tsconfig-paths/register', fixture, home], {
    cwd: ROOT,
    uid,
    gid: uid,
    encoding: 'utf8',
    timeout: 60_000,
  });
  if (child.status !== 0) throw new Error(`the locator as uid ${uid} failed: ${child.stderr || child.error?.message}`);
  return JSON.parse(child.stdout) as Located;
}
