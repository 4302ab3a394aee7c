import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

// Plain CommonJS (it runs before any build), so required rather than imported.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const build = require('./build.js') as {
  fingerprint(root: string): string;
  staleReason(root: string): string | undefined;
  STAMP: string;
  BUNDLES: string[];
};

describe('build.js --if-stale', () => {
  let root: string;
  const write = (path: string, text: string) => {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  };
  /** What a successful build leaves: both bundles and the stamp of the inputs it was built from. */
  const builtNow = () => {
    for (const bundle of build.BUNDLES) write(bundle, '// bundle');
    write(build.STAMP, `${build.fingerprint(root)}\n`);
  };

  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), 'nestclaw-build-'));
    write('package.json', '{}');
    write('package-lock.json', '{}');
    write('nest-cli.json', '{}');
    write('tsconfig.json', '{}');
    write('apps/gateway/src/main.ts', 'export const a = 1;');
    write('libs/common/src/index.ts', 'export const b = 1;');
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  it('builds when dist/ has never been built', () => {
    expect(build.staleReason(root)).toMatch(/missing/);
  });

  it('does not build again when nothing changed since the last build', () => {
    builtNow();
    expect(build.staleReason(root)).toBeUndefined();
  });

  it('builds when a source file changed', () => {
    builtNow();
    write('libs/common/src/index.ts', 'export const b = 2;');
    expect(build.staleReason(root)).toMatch(/changed/);
  });

  it('builds when a source file was added or removed', () => {
    builtNow();
    write('libs/common/src/extra.ts', 'export const c = 1;');
    expect(build.staleReason(root)).toMatch(/changed/);
    rmSync(join(root, 'libs/common/src/extra.ts'));
    expect(build.staleReason(root)).toBeUndefined();
    rmSync(join(root, 'apps/gateway/src/main.ts'));
    expect(build.staleReason(root)).toMatch(/changed/);
  });

  it('builds when a control UI source changed or its build output is gone', () => {
    write('apps/ui/src/app.tsx', 'export const App = () => null;');
    builtNow();
    write('apps/ui/src/styles.css', 'body { margin: 0; }');
    expect(build.staleReason(root)).toMatch(/changed/);
    builtNow();
    rmSync(join(root, 'dist/ui/index.html'));
    expect(build.staleReason(root)).toMatch(/dist\/ui\/index.html is missing/);
  });

  it('builds when the lock file or a build setting changed', () => {
    builtNow();
    write('package-lock.json', '{"lockfileVersion":3}');
    expect(build.staleReason(root)).toMatch(/changed/);
    builtNow();
    write('nest-cli.json', '{"compilerOptions":{}}');
    expect(build.staleReason(root)).toMatch(/changed/);
  });

  it('ignores a touch that leaves the content as it was (a checkout, an editor saving unchanged)', () => {
    builtNow();
    const later = new Date(Date.now() + 60_000);
    utimesSync(join(root, 'apps/gateway/src/main.ts'), later, later);
    expect(build.staleReason(root)).toBeUndefined();
  });

  it('ignores test files, which never reach a bundle', () => {
    builtNow();
    write('libs/common/src/index.spec.ts', 'it("x", () => undefined);');
    write('libs/common/src/index.int-spec.ts', 'it("y", () => undefined);');
    expect(build.staleReason(root)).toBeUndefined();
  });

  it('builds when a build was interrupted (no stamp) or a bundle is gone', () => {
    builtNow();
    rmSync(join(root, build.STAMP));
    expect(build.staleReason(root)).toMatch(/no build stamp/);
    builtNow();
    rmSync(join(root, build.BUNDLES[1]));
    expect(build.staleReason(root)).toMatch(/missing/);
  });
});
