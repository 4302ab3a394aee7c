import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';

const SRC = join(__dirname, '..');

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((d) =>
    d.isDirectory() ? sources(join(dir, d.name)) : d.name.endsWith('.ts') && !d.name.endsWith('.spec.ts') ? [join(dir, d.name)] : [],
  );
}

describe('process boundary', () => {
  it('lets only executors start processes', () => {
    const offenders = sources(SRC)
      .filter((f) => !relative(SRC, f).startsWith('executor/'))
      .filter((f) => /from ['"](node:)?child_process['"]|require\(['"](node:)?child_process['"]\)/.test(readFileSync(f, 'utf8')))
      .map((f) => relative(SRC, f));
    expect(offenders).toEqual([]);
  });
});
