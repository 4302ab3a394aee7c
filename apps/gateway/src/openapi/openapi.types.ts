/**
 * The parts of an OpenAPI 3.1 document this gateway writes. Schemas are JSON Schema 2020-12 (the
 * dialect OpenAPI 3.1 uses), as zod's `z.toJSONSchema` produces them.
 */
export type JsonSchema = { [keyword: string]: unknown };

export interface OpenApiParameter {
  name: string;
  in: 'path' | 'query';
  required: boolean;
  schema: JsonSchema;
}

export interface OpenApiReference {
  $ref: string;
}

export interface OpenApiOperation {
  operationId: string;
  tags: string[];
  parameters?: OpenApiParameter[];
  requestBody?: { required: boolean; content: { 'application/json': { schema: JsonSchema } } };
  responses: Record<string, { description: string } | OpenApiReference>;
  security: Array<Record<string, string[]>>;
  /** The scope the route needs (`chat`, `admin`, …), `any` for every valid token, or `public`. */
  'x-nestclaw-scope': string;
}

export type OpenApiPathItem = Partial<Record<'get' | 'put' | 'post' | 'delete' | 'options' | 'head' | 'patch', OpenApiOperation>>;

export interface OpenApiDocument {
  openapi: '3.1.0';
  info: { title: string; version: string; description: string };
  paths: Record<string, OpenApiPathItem>;
  components: {
    schemas: Record<string, JsonSchema>;
    responses: Record<string, { description: string; content: { 'application/json': { schema: JsonSchema } } }>;
    securitySchemes: Record<string, { type: 'http'; scheme: 'bearer'; description: string }>;
  };
}
