import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';

const SRC = __dirname;

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((d) =>
    d.isDirectory() ? sources(join(dir, d.name)) : d.name.endsWith('.ts') && !d.name.endsWith('.spec.ts') ? [join(dir, d.name)] : [],
  );
}

describe('process boundary (libs/mcp)', () => {
  it('starts stdio servers only through the tool lib executor layer: no child_process, no SDK stdio transport', () => {
    const offenders = sources(SRC)
      .filter((f) =>
        /from ['"](node:)?child_process['"]|require\(['"](node:)?child_process['"]\)|cross-spawn|sdk\/client\/stdio/.test(
          readFileSync(f, 'utf8'),
        ),
      )
      .map((f) => relative(SRC, f));
    expect(offenders).toEqual([]);
  });
});
