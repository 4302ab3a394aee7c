import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

let cached: string | undefined;

/**
 * The nestclaw install folder (the one holding package.json and prisma/). Found by walking up
 * from this file, so it works from sources (tests), from the webpack bundle in dist/, and from a
 * global npm install alike.
 */
export function packageRoot(): string {
  if (cached) return cached;
  let dir = __dirname;
  for (;;) {
    const pkg = join(dir, 'package.json');
    if (existsSync(pkg) && (JSON.parse(readFileSync(pkg, 'utf8')) as { name?: string }).name === 'nestclaw') {
      return (cached = dir);
    }
    const parent = dirname(dir);
    if (parent === dir) throw new Error(`cannot find the nestclaw package root above ${__dirname}`);
    dir = parent;
  }
}
