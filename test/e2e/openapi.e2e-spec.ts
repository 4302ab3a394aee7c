import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Harness, startHarness } from '../support/gateway-harness';
import { openApiStructureProblems } from '../support/openapi-structure';
import { concrete, nestRoutes } from '../support/route-table';
import { UI_API_TYPES_FILE, UI_API_TYPES_UPDATE, uiApiTypes } from '../support/ui-api-types';

type Json = Record<string, unknown>;
type ErrorBody = { error: { code: string; message: string } };
type Operation = {
  operationId: string;
  'x-nestclaw-scope': string;
  requestBody?: { content: { 'application/json': { schema: Json } } };
};
type Document = Json & { paths: Record<string, Record<string, Operation>>; components: { schemas: Record<string, Json> } };

const PACKAGE = JSON.parse(readFileSync(join(__dirname, '..', '..', 'package.json'), 'utf8')) as { name: string; version: string };

/** One value of each JSON type: the first whose type the schema does not allow is a wrong-typed value. */
const SAMPLES: Array<[string, unknown]> = [
  ['string', 'wrong-type'],
  ['number', 12.5],
  ['boolean', true],
  ['array', []],
  ['object', {}],
  ['null', null],
];

/** The JSON types a property schema admits, or undefined when it admits anything (no `type` somewhere). */
function typesOf(schema: Json): string[] | undefined {
  const branches = (schema.anyOf ?? schema.oneOf) as Json[] | undefined;
  if (branches) {
    const all = branches.map(typesOf);
    return all.some((t) => t === undefined) ? undefined : (all.flat() as string[]);
  }
  if (schema.type === undefined) return undefined;
  // `integer` alone leaves 12.5 (the `number` sample) wrong-typed, as it should.
  return ([] as string[]).concat(schema.type as string | string[]);
}

/** A body that the document says is invalid: `{}` when fields are required, one field of the wrong type each. */
function invalidBodies(schema: Json): Array<{ body: Json; names?: string }> {
  const required = (schema.required ?? []) as string[];
  const bodies: Array<{ body: Json; names?: string }> = required.length ? [{ body: {}, names: required[0] }] : [];
  for (const [field, property] of Object.entries((schema.properties ?? {}) as Record<string, Json>)) {
    const allowed = typesOf(property);
    if (!allowed) continue;
    const wrong = SAMPLES.find(([type]) => !allowed.includes(type));
    if (wrong) bodies.push({ body: { [field]: wrong[1] }, names: field });
  }
  return bodies;
}

describe('GET /v1/openapi.json', () => {
  let h: Harness;
  let doc: Document;
  beforeAll(async () => {
    h = await startHarness();
    const res = await h.api('/v1/openapi.json');
    expect(res.status).toBe(200);
    doc = (await res.json()) as Document;
  });
  afterAll(() => h.stop());

  const operations = () =>
    Object.entries(doc.paths).flatMap(([path, item]) =>
      Object.entries(item).map(([method, op]) => ({ path, method: method.toUpperCase(), op })),
    );

  it('answers 401 in the error shape without a token', async () => {
    const res = await fetch(`${h.gateway.url}/v1/openapi.json`);
    expect(res.status).toBe(401);
    expect(((await res.json()) as ErrorBody).error.code).toBe('unauthorized');
  });

  it("is what the control UI's API types were generated from (apps/ui/src/api-schema.gen.ts is current)", () => {
    const file = join(__dirname, '..', '..', UI_API_TYPES_FILE);
    const generated = uiApiTypes(doc);
    if (process.env.NESTCLAW_UPDATE_GENERATED === '1') writeFileSync(file, generated);
    const committed = readFileSync(file, 'utf8');
    if (committed !== generated) throw new Error(`${UI_API_TYPES_FILE} is stale: run ${UI_API_TYPES_UPDATE}`);
  });

  it('is titled and versioned from package.json', () => {
    expect(doc).toMatchObject({ openapi: '3.1.0', info: { title: PACKAGE.name, version: PACKAGE.version } });
  });

  it('describes every route the app serves, with its method and the scope the guard demands, and nothing else', () => {
    const served = nestRoutes(h)
      .filter((r) => r.inApi)
      .map((r) => `${r.method} ${r.path.replace(/:([A-Za-z0-9_]+)/g, '{$1}')} ${r.isPublic ? 'public' : r.scope}`);
    const described = operations().map((o) => `${o.method} ${o.path} ${o.op['x-nestclaw-scope']}`);
    expect(served.length).toBeGreaterThan(15);
    expect(described.sort()).toEqual(served.sort());
    expect(described).toContain('GET /v1/openapi.json any');
    // The control UI's pages are served, but are no API.
    expect(
      nestRoutes(h)
        .filter((r) => !r.inApi)
        .map((r) => r.path),
    ).toContain('/approvals');
    expect(described.some((d) => d.includes('/assets/'))).toBe(false);
  });

  it('describes the inbound webhook as public (its signature authenticates it) and answering 202', () => {
    const op = doc.paths['/api/webhook/{id}'].post as Operation & { security: unknown[]; responses: Json; parameters: Json[] };
    expect(op).toMatchObject({ operationId: 'webhook.receive', 'x-nestclaw-scope': 'public', security: [] });
    expect(Object.keys(op.responses)).toContain('202');
    expect(op.parameters).toEqual([{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }]);
  });

  it("gives /v1/chat's body schema: message required; sessionId, agentId and stream listed", () => {
    const schema = doc.paths['/v1/chat'].post.requestBody?.content['application/json'].schema;
    expect(schema?.required).toEqual(['message']);
    expect(Object.keys(schema?.properties as Json)).toEqual(expect.arrayContaining(['message', 'sessionId', 'agentId', 'stream']));
  });

  it('holds together as OpenAPI 3.1: path parameters declared, operation ids unique, every $ref resolving', () => {
    expect(openApiStructureProblems(doc)).toEqual([]);
  });

  it('has a structural check that catches a dangling $ref and an undeclared path parameter', () => {
    const broken = structuredClone(doc);
    broken.paths['/v1/broken/{id}'] = {
      get: { operationId: 'broken', responses: { '4XX': { $ref: '#/components/responses/Nope' } } } as never,
    };
    expect(openApiStructureProblems(broken)).toEqual([
      'GET /v1/broken/{id}: {id} has no in: path parameter',
      '$ref #/components/responses/Nope does not resolve',
    ]);
  });

  it('agrees with validation: every body the document calls invalid is refused with 400 naming the field', async () => {
    const answers: string[] = [];
    const expected: string[] = [];
    for (const { path, method, op } of operations()) {
      const schema = op.requestBody?.content['application/json'].schema;
      if (!schema) continue;
      const resolved = typeof schema.$ref === 'string' ? doc.components.schemas[schema.$ref.split('/').pop()!] : schema;
      for (const { body, names } of invalidBodies(resolved)) {
        const url = concrete(path.replace(/\{([^}]+)\}/g, ':$1'));
        const res = await h.api(url, { method, json: body });
        const error = ((await res.json()) as ErrorBody).error;
        const named = error?.message.includes(`${names}:`) ? 'names it' : `says "${error?.message}"`;
        answers.push(`${method} ${path} ${JSON.stringify(body)} -> ${res.status} ${error?.code} ${named}`);
        expected.push(`${method} ${path} ${JSON.stringify(body)} -> 400 invalid_request names it`);
      }
    }
    expect(answers).toEqual(expected);
    // Not vacuous: /v1/chat and the OpenAI endpoint are among the bodies probed, and many fields were.
    expect(answers.some((a) => a.startsWith('POST /v1/chat {}'))).toBe(true);
    expect(answers.some((a) => a.startsWith('POST /v1/chat/completions'))).toBe(true);
    expect(answers.length).toBeGreaterThan(15);
  });
});
