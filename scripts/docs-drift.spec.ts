import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { basename, dirname, join, relative } from 'node:path';

// Docs that name files must name files that exist: a moved or renamed file breaks this spec, so
// docs/architecture.md and the lib READMEs cannot quietly describe the code of two refactors ago.
const ROOT = join(__dirname, '..');

const LIBS = readdirSync(join(ROOT, 'libs')).filter((d) => statSync(join(ROOT, 'libs', d)).isDirectory());
const APPS = readdirSync(join(ROOT, 'apps')).filter((d) => statSync(join(ROOT, 'apps', d)).isDirectory());

/** Every file under `dir` (relative to ROOT), skipping generated code and dependencies. */
function filesUnder(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    for (const e of readdirSync(join(ROOT, d), { withFileTypes: true })) {
      if (e.name === 'node_modules' || e.name === 'generated') continue;
      const p = join(d, e.name);
      if (e.isDirectory()) walk(p);
      else out.push(p);
    }
  };
  if (existsSync(join(ROOT, dir))) walk(dir);
  return out;
}

const EXT = /\.(ts|js|mjs|md|json|ya?ml|prisma|sql)$/;
const CODE_EXT = /\.(ts|js|mjs)$/;

/**
 * The file and folder paths a markdown text names: backticked tokens, path-like words inside code
 * blocks, and relative link targets. Skipped: globs and placeholders (`*.repository.ts`,
 * `<section>`), `$NESTCLAW_HOME` paths, URLs and routes, and bare non-code names (`MEMORY.md` is a
 * workspace file, not a repository file).
 */
function pathsNamedIn(markdown: string): string[] {
  const tokens = new Set<string>();
  for (const m of markdown.matchAll(/`([^`\s]+)`/g)) tokens.add(m[1]);
  for (const block of markdown.matchAll(/```[^\n]*\n([\s\S]*?)```/g))
    for (const m of block[1].matchAll(/[\w./-]+\.(?:ts|js|mjs)\b/g)) tokens.add(m[0]);
  for (const m of markdown.matchAll(/\]\(([^)#\s]+)\)/g)) if (!/^[a-z]+:/.test(m[1])) tokens.add(m[1]);
  return [...tokens].filter((t) => {
    if (/[$*<>{}…]/.test(t) || /^(\/|@|https?:)/.test(t)) return false;
    if (t.endsWith('/')) return /^[\w./-]+\/$/.test(t);
    return EXT.test(t) && (t.includes('/') || CODE_EXT.test(t));
  });
}

/**
 * Whether `path`, named in the doc at `docPath`, exists: relative to the repository, the doc's folder
 * or one of `bases`; a bare file name anywhere under `bases`.
 */
function exists(path: string, docPath: string, bases: string[]): boolean {
  const candidates = [ROOT, join(ROOT, dirname(docPath)), ...bases.map((b) => join(ROOT, b))];
  if (candidates.some((c) => existsSync(join(c, path)))) return true;
  if (path.includes('/')) return false;
  return bases.some((b) => filesUnder(b).some((f) => basename(f) === path));
}

function missingIn(docPath: string, bases: string[]): string[] {
  const text = readFileSync(join(ROOT, docPath), 'utf8');
  return pathsNamedIn(text).filter((p) => !exists(p, docPath, bases));
}

const ALL_SOURCES = [...LIBS.map((l) => `libs/${l}/src`), ...APPS.map((a) => `apps/${a}/src`)];

describe('docs name files that exist', () => {
  it('finds paths in backticks, code blocks and links, and skips globs, routes and workspace files', () => {
    const md = [
      'See `turn/turn.loop.ts`, `sources/`, [ADR](adr/0001-x.md) and `MEMORY.md`.',
      'Not paths: `*.repository.ts`, `schema/<section>.schema.ts`, `$NESTCLAW_HOME/token`, `/v1/chat`, `@nestclaw/db`.',
      '```',
      'libs/channel/src/inbound-pipeline.service.ts   the hub',
      '  → access/access-policy.ts',
      '```',
    ].join('\n');
    expect(pathsNamedIn(md).sort()).toEqual(
      ['access/access-policy.ts', 'adr/0001-x.md', 'libs/channel/src/inbound-pipeline.service.ts', 'sources/', 'turn/turn.loop.ts'].sort(),
    );
  });

  it('gives every lib a README', () => {
    expect(LIBS.filter((l) => !existsSync(join(ROOT, 'libs', l, 'README.md')))).toEqual([]);
  });

  it.each(LIBS.filter((l) => existsSync(join(ROOT, 'libs', l, 'README.md'))))('libs/%s/README.md names only files that exist', (lib) => {
    expect(missingIn(`libs/${lib}/README.md`, [`libs/${lib}/src`, `libs/${lib}`])).toEqual([]);
  });

  it('docs/architecture.md names only files that exist', () => {
    expect(missingIn('docs/architecture.md', ALL_SOURCES)).toEqual([]);
  });
});

describe('ADR numbers', () => {
  const adrs = readdirSync(join(ROOT, 'docs/adr')).filter((f) => /^\d{4}-.*\.md$/.test(f));
  const numbers = adrs.map((f) => f.slice(0, 4));

  it('gives each decision its own number', () => {
    expect(numbers.filter((n, i) => numbers.indexOf(n) !== i)).toEqual([]);
  });

  it('refers only to ADRs that exist (docs, READMEs and code comments)', () => {
    const texts = [
      'README.md',
      ...filesUnder('docs'),
      ...LIBS.map((l) => `libs/${l}/README.md`),
      ...ALL_SOURCES.flatMap(filesUnder),
    ].filter((f) => /\.(md|ts)$/.test(f) && existsSync(join(ROOT, f)));
    const dangling: string[] = [];
    for (const f of texts) {
      const text = readFileSync(join(ROOT, f), 'utf8');
      for (const m of text.matchAll(/\bADR[ -](\d{4})\b|docs\/adr\/(\d{4})|\badr\/(\d{4})/g)) {
        const n = m[1] ?? m[2] ?? m[3];
        if (!numbers.includes(n)) dangling.push(`${relative(ROOT, join(ROOT, f))}: ${m[0]}`);
      }
    }
    expect(dangling).toEqual([]);
  });
});
