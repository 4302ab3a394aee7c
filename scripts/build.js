#!/usr/bin/env node
'use strict';
// `npm run build` (always builds) and `node scripts/build.js --if-stale` (npm start, test:e2e, bench):
// builds only when a build input changed since the last successful build. The inputs' content
// hash is kept in dist/.build-stamp, written only after every output built (the gateway and CLI
// bundles, and the control UI's static files from apps/ui with Vite), so a failed or interrupted
// build is redone and a stale dist is never run. Plain CommonJS: it runs before any build.
const { createHash } = require('node:crypto');
const { spawnSync } = require('node:child_process');
const { existsSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } = require('node:fs');
const { dirname, join } = require('node:path');

const ROOT = join(__dirname, '..');
const STAMP = join('dist', '.build-stamp');
const BUNDLES = [join('dist', 'apps', 'gateway', 'main.js'), join('dist', 'apps', 'cli', 'main.js'), join('dist', 'ui', 'index.html')];
/** Folders whose every file may reach a bundle (tests never do; apps/ covers apps/ui), and the files that steer the build. */
const INPUT_DIRS = ['apps', 'libs'];
const INPUT_FILES = ['package.json', 'package-lock.json', 'nest-cli.json', 'tsconfig.json', 'tsconfig.build.json', 'webpack.config.js'];
const NOT_AN_INPUT = /\.(int-)?spec\.ts$/;

function walk(root, dir, out) {
  const abs = join(root, dir);
  if (!existsSync(abs)) return;
  for (const name of readdirSync(abs).sort()) {
    const path = join(dir, name);
    // statSync follows links: a linked folder (a generated client, a shared checkout) counts by its content.
    const stat = statSync(join(root, path));
    if (stat.isDirectory()) walk(root, path, out);
    else if (stat.isFile() && !NOT_AN_INPUT.test(name)) out.push(path);
  }
}

/** The content hash of every build input under `root`: any edit, added or removed file changes it. */
function fingerprint(root = ROOT) {
  const files = [];
  for (const dir of INPUT_DIRS) walk(root, dir, files);
  for (const file of INPUT_FILES) if (existsSync(join(root, file))) files.push(file);
  const hash = createHash('sha256');
  for (const file of files) {
    hash.update(`${file.split('\\').join('/')}\0`);
    hash.update(readFileSync(join(root, file)));
    hash.update('\0');
  }
  return hash.digest('hex');
}

/** Why `root` must be built, or undefined when dist/ was built from exactly these inputs. */
function staleReason(root = ROOT, current = fingerprint(root)) {
  const missing = BUNDLES.find((b) => !existsSync(join(root, b)));
  if (missing) return `${missing} is missing`;
  const stampPath = join(root, STAMP);
  if (!existsSync(stampPath)) return 'dist/ has no build stamp';
  if (readFileSync(stampPath, 'utf8').trim() !== current) return 'sources changed since the last build';
  return undefined;
}

function nest(root, project) {
  const cli = require.resolve('@nestjs/cli/bin/nest.js', { paths: [root] });
  const run = spawnSync(process.execPath, [cli, 'build', project], { cwd: root, stdio: 'inherit' });
  if (run.status !== 0) process.exit(run.status ?? 1);
}

/** The control UI (apps/ui/vite.config.mjs): static files in dist/ui that the gateway serves at `/`. */
function ui(root) {
  // vite's package exports hide its bin, so it is found beside its package.json.
  const cli = join(dirname(require.resolve('vite/package.json', { paths: [root] })), 'bin', 'vite.js');
  const config = join(root, 'apps', 'ui', 'vite.config.mjs');
  const run = spawnSync(process.execPath, [cli, 'build', '--config', config, '--logLevel', 'warn'], { cwd: root, stdio: 'inherit' });
  if (run.status !== 0) process.exit(run.status ?? 1);
}

function build(root, reason) {
  // Taken before building: an edit made during the build leaves the stamp stale, so it is rebuilt next time.
  const inputs = fingerprint(root);
  if (reason) process.stderr.write(`nestclaw: building (${reason}) ...\n`);
  rmSync(join(root, STAMP), { force: true });
  nest(root, 'gateway');
  nest(root, 'cli');
  ui(root);
  writeFileSync(join(root, STAMP), `${inputs}\n`);
}

if (require.main === module) {
  const ifStale = process.argv.includes('--if-stale');
  const reason = ifStale ? staleReason(ROOT) : 'requested';
  if (reason) build(ROOT, ifStale ? reason : undefined);
}

module.exports = { fingerprint, staleReason, STAMP, BUNDLES };
