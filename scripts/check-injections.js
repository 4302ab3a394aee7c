'use strict';
// Part of `npm run lint` (called from check-boundaries.js): the project rule "a class has at most 6
// injected dependencies" (issue 10). Counts constructor parameters of Nest-managed classes (decorated
// @Injectable, @Controller, @WebSocketGateway, @Catch, @Resolver) in non-spec files under apps/ and libs/.
// The counter is proven on sample sources first, so a parser change cannot let the rule pass silently.
const ts = require('typescript');
const fs = require('node:fs');
const path = require('node:path');

const ROOT = path.resolve(__dirname, '..');
const MAX = 6;
const NEST_DECORATORS = new Set(['Injectable', 'Controller', 'WebSocketGateway', 'Catch', 'Resolver']);

function decoratorName(d) {
  const e = d.expression;
  const callee = ts.isCallExpression(e) ? e.expression : e;
  return ts.isIdentifier(callee) ? callee.text : ts.isPropertyAccessExpression(callee) ? callee.name.text : '';
}

/** [{ name, count }] for every Nest-managed class in the source text. */
function injectionCounts(file, text) {
  const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const out = [];
  const visit = (node) => {
    if (ts.isClassDeclaration(node)) {
      const managed = (ts.getDecorators(node) ?? []).some((d) => NEST_DECORATORS.has(decoratorName(d)));
      const ctor = node.members.find((m) => ts.isConstructorDeclaration(m) && m.body);
      if (managed && ctor) out.push({ name: node.name?.text ?? '<anonymous>', count: ctor.parameters.length });
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return out;
}

function sourceFiles(dir, out = []) {
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) {
      if (entry.name !== 'node_modules' && entry.name !== 'generated') sourceFiles(full, out);
    } else if (/\.ts$/.test(entry.name) && !/\.(spec|int-spec|e2e-spec)\.ts$/.test(entry.name) && !entry.name.endsWith('.d.ts')) {
      out.push(full);
    }
  }
  return out;
}

const SAMPLES = [
  {
    code: '@Injectable() class A { constructor(a: X, b: X, c: X, d: X, e: X, f: X, g: X) {} }',
    expect: [{ name: 'A', count: 7 }],
  },
  {
    code: "@Controller('x') export class B { constructor(private readonly a: X, @Inject(T) b: X) {} }",
    expect: [{ name: 'B', count: 2 }],
  },
  { code: 'class Plain { constructor(a: X, b: X, c: X, d: X, e: X, f: X, g: X) {} }', expect: [] },
];

/** Returns true when the rule failed (or its own samples did). */
function checkInjections() {
  let failed = false;
  for (const s of SAMPLES) {
    const got = JSON.stringify(injectionCounts('sample.ts', s.code));
    if (got !== JSON.stringify(s.expect)) {
      process.stderr.write(`check-injections: sample not counted as expected: ${s.code} → ${got}\n`);
      failed = true;
    }
  }
  const all = [];
  for (const dir of ['apps', 'libs']) {
    for (const file of sourceFiles(path.join(ROOT, dir))) {
      for (const c of injectionCounts(file, fs.readFileSync(file, 'utf8'))) all.push({ ...c, file: path.relative(ROOT, file) });
    }
  }
  all.sort((a, b) => b.count - a.count);
  const over = all.filter((c) => c.count > MAX);
  for (const c of over) process.stderr.write(`FAIL ${c.name} (${c.file}): ${c.count} injected dependencies, at most ${MAX}\n`);
  const top = all
    .slice(0, 5)
    .map((c) => `${c.name} ${c.count}`)
    .join(', ');
  process.stdout.write(`${over.length ? 'FAIL' : 'ok  '} injected dependencies ≤ ${MAX} in ${all.length} classes (largest: ${top})\n`);
  return failed || over.length > 0;
}

module.exports = { checkInjections, injectionCounts };

if (require.main === module) process.exit(checkInjections() ? 1 : 0);
