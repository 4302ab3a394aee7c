import { existsSync, lstatSync, mkdirSync, mkdtempSync, readlinkSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { installPlugin } from './plugin.installer';

describe('installing a plugin folder (no plugin code runs)', () => {
  let home: string;
  let src: string;
  beforeEach(() => {
    home = mkdtempSync(join(tmpdir(), 'nestclaw-install-home-'));
    src = mkdtempSync(join(tmpdir(), 'nestclaw-install-src-'));
    writeFileSync(join(src, 'nestclaw.plugin.json'), JSON.stringify({ name: 'demo', version: '2.0.0', entry: 'index.js' }));
    writeFileSync(join(src, 'index.js'), 'throw new Error("must not run")');
  });
  afterEach(() => {
    rmSync(home, { recursive: true, force: true });
    rmSync(src, { recursive: true, force: true });
  });

  it('copies it under plugins/<manifest name>, readable by the sandbox, keeping symlinks that stay inside', () => {
    mkdirSync(join(src, 'lib'));
    writeFileSync(join(src, 'lib', 'a.js'), '');
    symlinkSync('lib/a.js', join(src, 'alias.js'));
    const done = installPlugin(src, home);
    expect(done).toMatchObject({ dir: join(home, 'plugins', 'demo'), replaced: false });
    expect(done.manifest.version).toBe('2.0.0');
    expect(statSync(done.dir).mode & 0o777).toBe(0o755);
    expect(lstatSync(join(done.dir, 'alias.js')).isSymbolicLink()).toBe(true);
    expect(readlinkSync(join(done.dir, 'alias.js'))).toBe('lib/a.js');
  });

  it('refuses a dangling symlink', () => {
    symlinkSync(join(src, 'nowhere'), join(src, 'dangling'));
    expect(() => installPlugin(src, home)).toThrow('dangling is a dangling symlink');
    expect(existsSync(join(home, 'plugins', 'demo'))).toBe(false);
  });

  it('refuses a second install of the same name unless forced, then replaces it whole', () => {
    installPlugin(src, home);
    writeFileSync(join(home, 'plugins', 'demo', 'stale.js'), '');
    expect(() => installPlugin(src, home)).toThrow(expect.objectContaining({ code: 'conflict' }));
    expect(installPlugin(src, home, { force: true }).replaced).toBe(true);
    expect(existsSync(join(home, 'plugins', 'demo', 'stale.js'))).toBe(false);
  });

  it('refuses a path that is neither a folder, a .tgz nor a package npm can fetch', () => {
    expect(() => installPlugin(join(src, 'index.js'), home)).toThrow(expect.objectContaining({ code: 'invalid_request' }));
  });
});
