import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { resolveWorkspacePath } from './workspace-paths';

describe('resolveWorkspacePath', () => {
  const base = realpathSync(mkdtempSync(join(tmpdir(), 'ws-paths-')));
  const root = join(base, 'ws');
  const ws = { hostPath: root, access: 'rw' as const };
  beforeAll(() => {
    mkdirSync(join(root, 'sub'), { recursive: true });
    writeFileSync(join(root, 'sub', 'a.txt'), 'a');
    writeFileSync(join(base, 'secret.txt'), 'secret');
    symlinkSync(join(base, 'secret.txt'), join(root, 'out-link'));
    symlinkSync(base, join(root, 'out-dir'));
    symlinkSync(join(root, 'sub', 'a.txt'), join(root, 'in-link'));
    symlinkSync('/dev/null', join(root, 'devnull'));
    execFileSync('mkfifo', [join(root, 'fifo')]);
  });
  afterAll(() => rmSync(base, { recursive: true, force: true }));

  it('resolves relative paths inside the workspace', () => {
    expect(resolveWorkspacePath(ws, 'sub/a.txt')).toEqual({ hostPath: join(root, 'sub', 'a.txt'), relative: 'sub/a.txt', exists: true });
  });

  it('maps /workspace paths and allows new files', () => {
    expect(resolveWorkspacePath(ws, '/workspace/new/b.txt')).toMatchObject({ relative: 'new/b.txt', exists: false });
  });

  it('follows symlinks that stay inside', () => {
    expect(resolveWorkspacePath(ws, 'in-link').relative).toBe('sub/a.txt');
  });

  it.each([
    ['../secret.txt', 'outside the workspace'],
    ['sub/../../secret.txt', 'outside the workspace'],
    ['/etc/passwd', 'outside the workspace'],
    ['out-link', 'outside the workspace through a symlink'],
    ['out-dir/secret.txt', 'outside the workspace through a symlink'],
    ['out-dir/new.txt', 'outside the workspace through a symlink'],
    ['devnull', 'outside the workspace through a symlink'],
    ['fifo', 'FIFO'],
    ['a\0b', 'NUL'],
  ])('refuses %j', (p, why) => {
    expect(() => resolveWorkspacePath(ws, p)).toThrow(why);
  });

  it('refuses everything when access is none', () => {
    expect(() => resolveWorkspacePath({ hostPath: root, access: 'none' }, 'sub/a.txt')).toThrow('no workspace access');
  });
});
