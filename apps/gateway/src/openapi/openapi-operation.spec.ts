import { z } from 'zod';
import type { GatewayRoute } from './gateway-route';
import { buildOpenApiDocument } from './openapi-document';
import { openApiPath, toOperation } from './openapi-operation';

const route = (over: Partial<GatewayRoute>): GatewayRoute => ({
  controller: 'SessionsController',
  handler: 'list',
  method: 'GET',
  path: '/v1/sessions',
  access: 'admin',
  successStatus: 200,
  inputs: [],
  ...over,
});

describe('openApiPath', () => {
  it("writes Nest's :name parameters as OpenAPI's {name}", () => {
    expect(openApiPath('/v1/sessions/:sessionId/messages')).toBe('/v1/sessions/{sessionId}/messages');
    expect(openApiPath('/v1/models/nestclaw/:agentId')).toBe('/v1/models/nestclaw/{agentId}');
  });
});

describe('toOperation', () => {
  it('names the operation after controller and handler and tags it with the controller', () => {
    const op = toOperation(route({ controller: 'ChatCompletionsController', handler: 'create' }), {});
    expect(op.operationId).toBe('chatCompletions.create');
    expect(op.tags).toEqual(['chatCompletions']);
  });

  it('lists every path parameter, typed by its pipe or else as a string', () => {
    const op = toOperation(route({ path: '/v1/cron/:jobId/runs/:runId', inputs: [{ in: 'path', name: 'runId', schema: z.uuid() }] }), {});
    expect(op.parameters).toEqual([
      { name: 'jobId', in: 'path', required: true, schema: { type: 'string' } },
      { name: 'runId', in: 'path', required: true, schema: expect.objectContaining({ type: 'string', format: 'uuid' }) },
    ]);
  });

  it('spreads a whole-query schema into one parameter per field, required only when it has no default', () => {
    const query = z.object({ q: z.string(), k: z.coerce.number().default(5) });
    const op = toOperation(route({ inputs: [{ in: 'query', schema: query }] }), {});
    expect(op.parameters?.map((p) => [p.name, p.in, p.required])).toEqual([
      ['q', 'query', true],
      ['k', 'query', false],
    ]);
  });

  it('describes a validated body as a required JSON request body', () => {
    const op = toOperation(route({ method: 'POST', inputs: [{ in: 'body', schema: z.object({ message: z.string() }) }] }), {});
    expect(op.requestBody).toEqual({
      required: true,
      content: { 'application/json': { schema: { type: 'object', properties: { message: { type: 'string' } }, required: ['message'] } } },
    });
  });

  it('names the scope in security and in x-nestclaw-scope; public needs no token, any needs one', () => {
    expect(toOperation(route({ access: 'admin' }), {})).toMatchObject({ security: [{ bearer: ['admin'] }], 'x-nestclaw-scope': 'admin' });
    expect(toOperation(route({ access: 'any' }), {})).toMatchObject({ security: [{ bearer: [] }], 'x-nestclaw-scope': 'any' });
    expect(toOperation(route({ access: 'public' }), {})).toMatchObject({ security: [], 'x-nestclaw-scope': 'public' });
  });

  it('answers errors with the shared error response, and a 2XX when the handler writes its own reply', () => {
    expect(toOperation(route({ successStatus: undefined }), {}).responses).toEqual({
      '2XX': { description: 'Success' },
      '4XX': { $ref: '#/components/responses/Error' },
      '5XX': { $ref: '#/components/responses/Error' },
    });
  });
});

describe('buildOpenApiDocument', () => {
  it('takes title and version from the package and groups operations by path', () => {
    const doc = buildOpenApiDocument([route({}), route({ method: 'POST', handler: 'create' })], { name: 'nestclaw', version: '1.2.3' });
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.info).toMatchObject({ title: 'nestclaw', version: '1.2.3' });
    expect(Object.keys(doc.paths['/v1/sessions'])).toEqual(['get', 'post']);
  });

  it('refuses two handlers for one method and path rather than describing only one of them', () => {
    expect(() => buildOpenApiDocument([route({}), route({ handler: 'other' })], { name: 'n', version: '1' })).toThrow(
      'Two handlers serve GET /v1/sessions',
    );
  });
});
