/**
 * What an OpenAPI 3.1 document must hold together, checked without a validator library: the
 * version, every operation's path parameters against its path template, unique operation ids,
 * security requirements naming a declared scheme, and every local `$ref` resolving. Returns the
 * problems found, one line each, so a failing test shows them all.
 */
const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

type Json = Record<string, unknown>;

export function openApiStructureProblems(doc: Json): string[] {
  const problems: string[] = [];
  if (typeof doc.openapi !== 'string' || !/^3\.1\.\d+$/.test(doc.openapi)) problems.push(`openapi is ${String(doc.openapi)}, not 3.1.x`);
  const info = (doc.info ?? {}) as Json;
  if (typeof info.title !== 'string' || typeof info.version !== 'string') problems.push('info needs a title and a version');
  const schemes = Object.keys(((doc.components as Json | undefined)?.securitySchemes ?? {}) as Json);
  const operationIds = new Set<string>();
  for (const [path, item] of Object.entries((doc.paths ?? {}) as Record<string, Json>)) {
    if (!path.startsWith('/')) problems.push(`${path}: a path must start with /`);
    const templated = [...path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]);
    for (const [method, op] of Object.entries(item) as Array<[string, Json]>) {
      const at = `${method.toUpperCase()} ${path}`;
      if (!METHODS.includes(method)) {
        problems.push(`${at}: not an HTTP method`);
        continue;
      }
      const id = op.operationId as string;
      if (operationIds.has(id)) problems.push(`${at}: operationId ${id} is used twice`);
      operationIds.add(id);
      if (!op.responses || Object.keys(op.responses).length === 0) problems.push(`${at}: no responses`);
      const params = (op.parameters ?? []) as Json[];
      const inPath = params.filter((p) => p.in === 'path');
      for (const name of templated) {
        const p = inPath.find((x) => x.name === name);
        if (!p) problems.push(`${at}: {${name}} has no in: path parameter`);
        else if (p.required !== true) problems.push(`${at}: path parameter ${name} must be required`);
      }
      for (const p of inPath)
        if (!templated.includes(String(p.name))) problems.push(`${at}: path parameter ${String(p.name)} is not in the path`);
      const keys = params.map((p) => `${String(p.in)}:${String(p.name)}`);
      if (new Set(keys).size !== keys.length) problems.push(`${at}: a parameter is listed twice`);
      for (const p of params) if (!p.schema) problems.push(`${at}: parameter ${String(p.name)} has no schema`);
      for (const requirement of (op.security ?? []) as Json[]) {
        for (const scheme of Object.keys(requirement))
          if (!schemes.includes(scheme)) problems.push(`${at}: unknown security scheme ${scheme}`);
      }
    }
  }
  for (const ref of refsIn(doc)) if (!resolves(doc, ref)) problems.push(`$ref ${ref} does not resolve`);
  return problems;
}

/** Every `$ref` value anywhere in the document. */
function refsIn(value: unknown, found: string[] = []): string[] {
  if (Array.isArray(value)) value.forEach((v) => refsIn(v, found));
  else if (value !== null && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) {
      if (k === '$ref' && typeof v === 'string') found.push(v);
      else refsIn(v, found);
    }
  }
  return found;
}

/** A local reference (`#/a/b`, JSON Pointer escapes ~0 and ~1) that names something in the document. */
function resolves(doc: Json, ref: string): boolean {
  if (!ref.startsWith('#/')) return false;
  let at: unknown = doc;
  for (const raw of ref.slice(2).split('/')) {
    const key = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    if (at === null || typeof at !== 'object' || !Object.hasOwn(at, key)) return false;
    at = (at as Json)[key];
  }
  return at !== undefined;
}
