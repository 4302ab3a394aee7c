import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse, stringify } from 'yaml';

/**
 * Helm is not installable on these machines, so the chart is rendered by this small subset of
 * Helm's template language: `.Values.*`, `.Release.Name`, `.Chart.*`, the functions
 * `required "<message>" <ref>` and `toYaml <ref>`, the pipes `quote`, `default <ref>` and `indent N`,
 * and `if … end` blocks (an empty map or list is false, as in Helm). Anything else throws, so a
 * template that outgrows it fails the test instead of rendering wrongly.
 */
export function renderChart(chartDir: string, release: string, overrides: Record<string, unknown> = {}): string[] {
  const chart = parse(readFileSync(join(chartDir, 'Chart.yaml'), 'utf8')) as Record<string, unknown>;
  const values = merge(parse(readFileSync(join(chartDir, 'values.yaml'), 'utf8')) as Record<string, unknown>, overrides);
  const scope = {
    Values: values,
    Release: { Name: release },
    Chart: { Name: chart.name, Version: chart.version, AppVersion: chart.appVersion },
  };
  const dir = join(chartDir, 'templates');
  return readdirSync(dir)
    .filter((f) => f.endsWith('.yaml'))
    .sort()
    .map((f) => render(readFileSync(join(dir, f), 'utf8'), scope, f))
    .filter((doc) => doc.trim().length > 0);
}

function merge(base: Record<string, unknown>, over: Record<string, unknown>): Record<string, unknown> {
  const out = { ...base };
  for (const [k, v] of Object.entries(over)) {
    out[k] =
      v && typeof v === 'object' && !Array.isArray(v) ? merge((base[k] as Record<string, unknown>) ?? {}, v as Record<string, unknown>) : v;
  }
  return out;
}

function lookup(scope: object, ref: string, file: string): unknown {
  if (!ref.startsWith('.')) throw new Error(`${file}: unsupported template reference "${ref}"`);
  return ref
    .slice(1)
    .split('.')
    .reduce<unknown>((o, k) => (o as Record<string, unknown> | undefined)?.[k], scope);
}

/** Helm's truth: empty strings, maps and lists are false too. */
function truthy(v: unknown): boolean {
  if (Array.isArray(v)) return v.length > 0;
  if (v && typeof v === 'object') return Object.keys(v).length > 0;
  return !!v;
}

/** The start of a pipeline: a reference, `required "<message>" <ref>` (fails the render when empty) or `toYaml <ref>`. */
function head(expr: string, scope: object, file: string): unknown {
  const required = /^required\s+"([^"]*)"\s+(\S+)$/.exec(expr);
  if (required) {
    const v = lookup(scope, required[2], file);
    if (!truthy(v)) throw new Error(`${file}: ${required[1]}`);
    return v;
  }
  const toYaml = /^toYaml\s+(\S+)$/.exec(expr);
  if (toYaml) return stringify(lookup(scope, toYaml[1], file) ?? {}).replace(/\n$/, '');
  return lookup(scope, expr, file);
}

function evaluate(expr: string, scope: object, file: string): string {
  const [first, ...pipes] = expr.split('|').map((s) => s.trim());
  let v = head(first, scope, file);
  for (const p of pipes) {
    const [fn, arg] = p.split(/\s+/, 2);
    if (fn === 'quote') v = JSON.stringify(String(v ?? ''));
    else if (fn === 'default') v = v === undefined || v === null || v === '' ? lookup(scope, arg, file) : v;
    else if (fn === 'indent') {
      const pad = ' '.repeat(Number(arg));
      v = String(v ?? '')
        .replace(/\n$/, '')
        .split('\n')
        .map((l) => pad + l)
        .join('\n');
    } else throw new Error(`${file}: unsupported template function "${fn}"`);
  }
  if (v === undefined) throw new Error(`${file}: ${first} is not set`);
  return String(v);
}

function render(text: string, scope: object, file: string): string {
  // if … end blocks (not nested), with `{{-` trimming the whitespace before them.
  let out = text.replace(/\s*\{\{-?\s*if\s+([^}]+?)\s*-?\}\}([\s\S]*?)\{\{-?\s*end\s*-?\}\}/g, (_m, cond: string, body: string) =>
    truthy(lookup(scope, cond.trim(), file)) ? body : '',
  );
  out = out.replace(/\{\{-?\s*([^}]+?)\s*-?\}\}/g, (_m, expr: string) => evaluate(expr, scope, file));
  return out;
}
