import { z } from 'zod';
import type { JsonSchema } from './openapi.types';
import { toOpenApiSchema } from './zod-json-schema';

type Tree = { name: string; children: Tree[] };
const tree: z.ZodType<Tree> = z.lazy(() => z.object({ name: z.string(), children: z.array(tree) }));

describe('toOpenApiSchema', () => {
  it('describes the input a client sends: defaults make a field optional, transforms are not applied', () => {
    const components: Record<string, JsonSchema> = {};
    const schema = toOpenApiSchema(
      z.object({ limit: z.coerce.number().int().default(50), q: z.string().transform((s) => s.length) }),
      'x.query',
      components,
    );
    expect(schema).toEqual({
      type: 'object',
      properties: {
        limit: { type: 'integer', default: 50, minimum: expect.any(Number), maximum: expect.any(Number) },
        q: { type: 'string' },
      },
      required: ['q'],
    });
    expect(components).toEqual({});
  });

  it('leaves out the $schema dialect, which OpenAPI 3.1 already fixes', () => {
    expect(toOpenApiSchema(z.string(), 'x', {})).toEqual({ type: 'string' });
  });

  it('turns what JSON Schema cannot express into "anything" instead of failing', () => {
    expect(toOpenApiSchema(z.object({ at: z.date() }), 'x', {})).toEqual({ type: 'object', properties: { at: {} }, required: ['at'] });
  });

  it('moves a recursive part into components and points at it there, not at the document root', () => {
    const components: Record<string, JsonSchema> = {};
    const schema = toOpenApiSchema(z.object({ root: tree }), 'op.body', components);
    expect(schema).toEqual({
      type: 'object',
      properties: { root: { $ref: '#/components/schemas/op.body.__schema0' } },
      required: ['root'],
    });
    expect(components['op.body.__schema0']).toMatchObject({
      properties: { children: { items: { $ref: '#/components/schemas/op.body.__schema0' } } },
    });
  });

  it('moves a schema that refers to itself whole into components and answers with a reference', () => {
    const components: Record<string, JsonSchema> = {};
    expect(toOpenApiSchema(tree, 'op.body', components)).toEqual({ $ref: '#/components/schemas/op.body' });
    expect(components['op.body']).toMatchObject({ properties: { children: { items: { $ref: '#/components/schemas/op.body' } } } });
  });
});
