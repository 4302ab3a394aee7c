import type { GatewayRoute } from './gateway-route';
import { BEARER_SCHEME, openApiPath, toOperation } from './openapi-operation';
import type { JsonSchema, OpenApiDocument, OpenApiPathItem } from './openapi.types';

/** The one error body every failure has (apps/gateway/src/errors/error-body.ts). */
const ERROR_SCHEMA: JsonSchema = {
  type: 'object',
  required: ['error'],
  properties: {
    error: {
      type: 'object',
      required: ['code', 'message'],
      properties: {
        code: { type: 'string', description: 'Stable, machine-readable: `invalid_request`, `unauthorized`, `forbidden`, `not_found`, …' },
        message: { type: 'string', description: 'For people: what was wrong and, where it helps, what to do.' },
        errorId: { type: 'string', description: 'On a 500 only: the id the server log carries.' },
      },
    },
  },
};

const DESCRIPTION = [
  "Generated at run time from the gateway's own routes and the zod schemas that validate their input.",
  'Every operation names the scope its bearer token needs in `security` and in `x-nestclaw-scope`',
  '(`public`: no token; `any`: any valid token). The WebSocket chat (`GET /ws`, an upgrade) is not described here.',
].join(' ');

/** The OpenAPI 3.1 document for these routes; `package` supplies the title and version. */
export function buildOpenApiDocument(routes: readonly GatewayRoute[], pkg: { name: string; version: string }): OpenApiDocument {
  const schemas: Record<string, JsonSchema> = { Error: ERROR_SCHEMA };
  const paths: Record<string, OpenApiPathItem> = {};
  const sorted = [...routes].sort((a, b) => a.path.localeCompare(b.path) || a.method.localeCompare(b.method));
  for (const route of sorted) {
    const item = (paths[openApiPath(route.path)] ??= {});
    const method = route.method.toLowerCase() as keyof OpenApiPathItem;
    if (item[method]) throw new Error(`Two handlers serve ${route.method} ${route.path}`);
    item[method] = toOperation(route, schemas);
  }
  return {
    openapi: '3.1.0',
    info: { title: pkg.name, version: pkg.version, description: DESCRIPTION },
    paths,
    components: {
      schemas,
      responses: {
        Error: {
          description: 'The request failed; `code` says why.',
          content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
        },
      },
      securitySchemes: {
        [BEARER_SCHEME]: {
          type: 'http',
          scheme: 'bearer',
          description: 'The owner token or a paired token (`nestclaw pair`); its scopes are listed per operation.',
        },
      },
    },
  };
}
