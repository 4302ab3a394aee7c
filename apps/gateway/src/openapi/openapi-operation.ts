import { ANY_SCOPE } from '../auth/require-scope.decorator';
import type { GatewayRoute } from './gateway-route';
import type { JsonSchema, OpenApiOperation, OpenApiParameter } from './openapi.types';
import type { RouteInput } from './route-inputs';
import { toOpenApiSchema } from './zod-json-schema';

export const BEARER_SCHEME = 'bearer';
export const ERROR_RESPONSE = '#/components/responses/Error';

/** Nest's `/v1/sessions/:sessionId` as OpenAPI's `/v1/sessions/{sessionId}`. */
export const openApiPath = (nestPath: string) => nestPath.replace(/:([A-Za-z0-9_]+)/g, '{$1}');

/** The names of a Nest path's `:name` parameters, in order. */
const pathParameterNames = (nestPath: string) => [...nestPath.matchAll(/:([A-Za-z0-9_]+)/g)].map((m) => m[1]);

/** `SessionsController` + `list` → `sessions.list`: unique, and readable in generated clients. */
export function operationIdOf(route: GatewayRoute): string {
  const controller = route.controller.replace(/Controller$/, '');
  return `${controller.charAt(0).toLowerCase()}${controller.slice(1)}.${route.handler}`;
}

/** One route as an OpenAPI operation: its inputs, who may call it, and what it answers. */
export function toOperation(route: GatewayRoute, components: Record<string, JsonSchema>): OpenApiOperation {
  const operationId = operationIdOf(route);
  const schemaOf = (input: RouteInput, suffix: string) =>
    input.schema ? toOpenApiSchema(input.schema, `${operationId}.${suffix}`, components) : undefined;
  const parameters = [...pathParameters(route, schemaOf), ...queryParameters(route, schemaOf)];
  const body = route.inputs.find((i) => i.in === 'body' && i.name === undefined);
  const bodySchema = body ? (schemaOf(body, 'body') ?? { type: 'object' }) : undefined;
  return {
    operationId,
    tags: [operationId.split('.')[0]],
    ...(parameters.length ? { parameters } : {}),
    ...(bodySchema ? { requestBody: { required: true, content: { 'application/json': { schema: bodySchema } } } } : {}),
    responses: {
      // A handler that writes the reply itself (@Res: SSE streams, health probes) picks its own 2xx.
      [route.successStatus === undefined ? '2XX' : String(route.successStatus)]: { description: 'Success' },
      '4XX': { $ref: ERROR_RESPONSE },
      '5XX': { $ref: ERROR_RESPONSE },
    },
    // OpenAPI 3.1 lets a non-OAuth requirement list roles: the scope goes there and in the extension.
    security: route.access === 'public' ? [] : [{ [BEARER_SCHEME]: route.access === ANY_SCOPE ? [] : [route.access] }],
    'x-nestclaw-scope': route.access,
  };
}

type SchemaOf = (input: RouteInput, suffix: string) => JsonSchema | undefined;

/** Every `:name` in the path, typed by its @Param ZodPipe when it has one, else a plain string. */
function pathParameters(route: GatewayRoute, schemaOf: SchemaOf): OpenApiParameter[] {
  const params = route.inputs.filter((i) => i.in === 'path');
  const whole = params.find((i) => i.name === undefined);
  const wholeSchema = whole ? schemaOf(whole, 'path') : undefined;
  return pathParameterNames(route.path).map((name) => {
    const own = params.find((i) => i.name === name);
    const schema = (own && schemaOf(own, `path.${name}`)) ?? propertyOf(wholeSchema, name) ?? { type: 'string' };
    return { name, in: 'path', required: true, schema };
  });
}

/** The query string: one parameter per property of a whole-query schema, plus any named @Query. */
function queryParameters(route: GatewayRoute, schemaOf: SchemaOf): OpenApiParameter[] {
  const parameters: OpenApiParameter[] = [];
  for (const input of route.inputs.filter((i) => i.in === 'query')) {
    if (input.name !== undefined) {
      const required = input.schema ? !input.schema.safeParse(undefined).success : false;
      parameters.push({ name: input.name, in: 'query', required, schema: schemaOf(input, `query.${input.name}`) ?? { type: 'string' } });
      continue;
    }
    const schema = schemaOf(input, 'query');
    const required = new Set((schema?.required ?? []) as string[]);
    for (const [name, property] of Object.entries((schema?.properties ?? {}) as Record<string, JsonSchema>)) {
      parameters.push({ name, in: 'query', required: required.has(name), schema: property });
    }
  }
  return parameters;
}

const propertyOf = (schema: JsonSchema | undefined, name: string) => (schema?.properties as Record<string, JsonSchema> | undefined)?.[name];
