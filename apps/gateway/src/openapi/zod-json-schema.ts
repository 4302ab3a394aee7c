import { z } from 'zod';
import type { JsonSchema } from './openapi.types';

/**
 * A zod schema as an OpenAPI 3.1 schema object, describing what a client may send (`io: 'input'`:
 * before defaults and transforms). Parts JSON Schema cannot express (a custom refinement, a date
 * object) become `{}`, "anything", rather than failing the whole document.
 *
 * zod puts recursive parts in `$defs` and points at them with `#/$defs/…` (or `#` for the root),
 * which inside an OpenAPI document would resolve against the document, not the schema. They are
 * moved into `components.schemas` as `<name>.<def>` (the root as `<name>`) and the refs rewritten.
 */
export function toOpenApiSchema(schema: z.ZodType, name: string, components: Record<string, JsonSchema>): JsonSchema {
  const json = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as JsonSchema;
  const { $schema: _dialect, $defs, ...root } = json;
  const defs = ($defs ?? {}) as Record<string, JsonSchema>;
  const target = (ref: string) =>
    ref === '#' ? `#/components/schemas/${name}` : ref.replace(/^#\/\$defs\//, `#/components/schemas/${name}.`);
  for (const [def, body] of Object.entries(defs)) components[`${name}.${def}`] = rewriteRefs(body, target) as JsonSchema;
  const rewritten = rewriteRefs(root, target) as JsonSchema;
  if (!JSON.stringify(root).includes('"$ref":"#"')) return rewritten;
  components[name] = rewritten;
  return { $ref: `#/components/schemas/${name}` };
}

/** A copy of `value` with every local `$ref` passed through `target`. */
function rewriteRefs(value: unknown, target: (ref: string) => string): unknown {
  if (Array.isArray(value)) return value.map((v) => rewriteRefs(v, target));
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.entries(value).map(([k, v]) => [
      k,
      k === '$ref' && typeof v === 'string' && v.startsWith('#') ? target(v) : rewriteRefs(v, target),
    ]),
  );
}
