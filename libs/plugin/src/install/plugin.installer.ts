import { execFileSync } from 'node:child_process';
import {
  chmodSync,
  cpSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  realpathSync,
  renameSync,
  rmSync,
  statSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { isAbsolute, join, relative, resolve } from 'node:path';
import { NestclawError } from '@nestclaw/common';
import { pluginsHome } from '../discovery/plugin.discovery';
import { readManifest } from '../manifest/manifest.reader';
import type { PluginManifest } from '../manifest/plugin-manifest.schema';

/** A plugin folder larger than this, or with more files, is refused (an install is not a data copy). */
const MAX_BYTES = 50 * 1024 * 1024;
const MAX_FILES = 5_000;

export interface InstalledPlugin {
  manifest: PluginManifest;
  dir: string;
  /** It replaced a plugin of the same name (`--force`). */
  replaced: boolean;
}

/**
 * `nestclaw plugins install`: copies a plugin folder, a `.tgz` or an npm package into
 * `$NESTCLAW_HOME/plugins/<manifest name>/`. The manifest is checked before anything is copied and
 * no plugin code runs: a package is fetched with `npm pack --ignore-scripts` and unpacked with tar, never
 * `npm install`ed. Refused: a bad manifest, a name already installed (unless `force`), a symlink leading
 * out of the plugin's folder, more than 50 MiB or 5,000 files.
 */
export function installPlugin(source: string, home: string, opts: { force?: boolean } = {}): InstalledPlugin {
  const work = mkdtempSync(join(tmpdir(), 'nestclaw-plugin-install-'));
  try {
    const dir = fetchSource(source, work);
    checkTree(dir);
    const r = readManifest(dir);
    if (!r.ok) throw new NestclawError('invalid_request', `not installed: ${r.error}`);
    const root = pluginsHome(home);
    const target = join(root, r.manifest.name);
    const replaced = existsSync(target);
    if (replaced && !opts.force)
      throw new NestclawError(
        'conflict',
        `a plugin named "${r.manifest.name}" is already installed in ${target}; pass --force to replace it`,
      );
    mkdirSync(root, { recursive: true, mode: 0o700 });
    // Copied next to the target first, then swapped in: a failed copy never leaves half a plugin.
    const staging = mkdtempSync(join(root, `.installing-${r.manifest.name}-`));
    cpSync(dir, staging, { recursive: true, verbatimSymlinks: true });
    if (replaced) rmSync(target, { recursive: true, force: true });
    renameSync(staging, target);
    // mkdtemp made it 0700; an untrusted plugin's sandbox runs as another uid and must read its own folder.
    chmodSync(target, 0o755);
    return { manifest: r.manifest, dir: target, replaced };
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

/** The folder to install from: the folder itself, or a package unpacked (never run) under `work`. */
function fetchSource(source: string, work: string): string {
  const local = resolve(source);
  if (existsSync(local) && statSync(local).isDirectory()) return local;
  let tgz = local;
  if (!(existsSync(local) && /\.(tgz|tar\.gz)$/.test(local))) {
    try {
      const name = execFileSync('npm', ['pack', source, '--ignore-scripts', '--silent', '--pack-destination', work], {
        cwd: work,
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'pipe'],
        timeout: 120_000,
      });
      tgz = join(work, name.trim().split('\n').pop()!);
    } catch (e) {
      throw new NestclawError(
        'invalid_request',
        `${source} is not a plugin folder, a .tgz or an npm package npm can fetch: ${firstLine(e)}`,
      );
    }
  }
  const out = join(work, 'unpacked');
  mkdirSync(out);
  try {
    // --no-same-owner/permissions: files are ours; tar itself refuses members with absolute or `..` paths.
    execFileSync('tar', ['-xzf', tgz, '-C', out, '--no-same-owner', '--no-same-permissions'], { stdio: 'pipe', timeout: 60_000 });
  } catch (e) {
    throw new NestclawError('invalid_request', `cannot unpack ${source}: ${firstLine(e)}`);
  }
  // npm's tarballs hold one folder, `package/`.
  return existsSync(join(out, 'package')) ? join(out, 'package') : out;
}

/** Refuses symlinks leading out of `dir` (or dangling), and absurd sizes, before any copy. */
function checkTree(dir: string): void {
  const root = realpathSync(dir);
  let bytes = 0;
  let files = 0;
  const walk = (d: string) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const p = join(d, e.name);
      if (++files > MAX_FILES) throw new NestclawError('invalid_request', `not installed: more than ${MAX_FILES} files`);
      if (e.isSymbolicLink()) {
        let real: string;
        try {
          real = realpathSync(p);
        } catch {
          throw new NestclawError('invalid_request', `not installed: ${relative(dir, p)} is a dangling symlink`);
        }
        const rel = relative(root, real);
        if (rel.startsWith('..') || isAbsolute(rel))
          throw new NestclawError('invalid_request', `not installed: ${relative(dir, p)} is a symlink leading out of the plugin's folder`);
        continue;
      }
      if (e.isDirectory()) walk(p);
      else if (e.isFile()) {
        bytes += lstatSync(p).size;
        if (bytes > MAX_BYTES) throw new NestclawError('invalid_request', `not installed: larger than ${MAX_BYTES / 1024 / 1024} MiB`);
      } else throw new NestclawError('invalid_request', `not installed: ${relative(dir, p)} is not a regular file or folder`);
    }
  };
  walk(dir);
}

function firstLine(e: unknown): string {
  const err = e as { stderr?: Buffer | string; message?: string };
  const text = (err.stderr?.toString() || err.message || String(e)).trim();
  return text.split('\n').find((l) => l.trim()) ?? text;
}
