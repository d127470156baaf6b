// Validation schemas as the OpenAPI document shows them. ajv validates with draft-07 semantics;
// OpenAPI 3.1 reads JSON Schema 2020-12. The keywords the routes use mean the same in both, and
// those that do not (tuple `items`, `additionalItems`, `dependencies`, `definitions`) are refused
// here rather than shown with another meaning. A schema's own `$defs` move to the document's
// components (a `#/$defs/x` ref would point into the document's root, where they are not).
import { isDeepStrictEqual } from 'node:util';

type Schema = Record<string, unknown>;

const DEFS_REF = '#/$defs/';
const COMPONENTS_REF = '#/components/schemas/';
/** Keywords whose meaning differs between draft-07 and 2020-12, or that pin a dialect. */
const REFUSED = ['additionalItems', 'dependencies', 'definitions', '$schema', '$id'];
/** Keywords whose value is one schema, a map of schemas, or a list of schemas. */
const ONE = ['items', 'additionalProperties', 'propertyNames', 'contains', 'not', 'if', 'then', 'else'];
const MAP = ['properties', 'patternProperties'];
const LIST = ['allOf', 'anyOf', 'oneOf'];

/**
 * A copy of `schema` with `#/$defs/...` refs pointing to `#/components/schemas/...`; its `$defs`
 * are added to `components` (the same name must always mean the same schema).
 */
export function toDocumentSchema(schema: object, components: Record<string, object>): object {
  return convert(schema, components, '') as object;
}

function convert(schema: unknown, components: Record<string, object>, at: string): unknown {
  if (typeof schema !== 'object' || schema === null) return schema; // true and false are schemas too
  if (Array.isArray(schema)) throw new Error(`OpenAPI: ${at || 'the schema'} is an array, not a schema`);
  const out: Schema = {};
  for (const [keyword, value] of Object.entries(schema)) {
    const here = `${at}/${keyword}`;
    if (REFUSED.includes(keyword)) throw new Error(`OpenAPI: ${here} is not shown the same in JSON Schema 2020-12`);
    if (keyword === '$defs') {
      for (const [name, def] of Object.entries(value as Schema)) addComponent(components, name, convert(def, components, `${here}/${name}`) as object);
    } else if (keyword === '$ref') {
      out.$ref = rewriteRef(String(value), here);
    } else if (keyword === 'additionalProperties' && value === false) {
      // ajv validates with removeAdditional: a property the schema does not name is dropped, not
      // refused, so the document does not say it is refused (the request body's description says so).
      continue;
    } else if (ONE.includes(keyword)) {
      if (Array.isArray(value)) throw new Error(`OpenAPI: ${here} is a tuple, which 2020-12 writes as prefixItems`);
      out[keyword] = convert(value, components, here);
    } else if (MAP.includes(keyword)) {
      out[keyword] = Object.fromEntries(Object.entries(value as Schema).map(([k, s]) => [k, convert(s, components, `${here}/${k}`)]));
    } else if (LIST.includes(keyword)) {
      out[keyword] = (value as unknown[]).map((s, i) => convert(s, components, `${here}/${i}`));
    } else {
      out[keyword] = value; // a value, not a schema: enum, const, type, bounds, format…
    }
  }
  return out;
}

function rewriteRef(ref: string, at: string): string {
  if (!ref.startsWith(DEFS_REF) || ref.slice(DEFS_REF.length).includes('/')) {
    throw new Error(`OpenAPI: ${at} refers to ${ref}; only a schema's own #/$defs/<name> can be shown`);
  }
  return COMPONENTS_REF + ref.slice(DEFS_REF.length);
}

function addComponent(components: Record<string, object>, name: string, schema: object) {
  if (components[name] && !isDeepStrictEqual(components[name], schema)) {
    throw new Error(`OpenAPI: two different schemas are both named ${name}`);
  }
  components[name] = schema;
}

/**
 * A request body schema as a route that takes `null` as absent reads it: every optional property
 * also takes `null` (at the top level, or at every depth of objects). Required ones do not: null
 * there is the same "missing" as leaving them out.
 */
export function withNullAsAbsent(schema: object, depth: 'top' | 'every'): object {
  return nullable(schema as Schema, depth === 'every', true);
}

function nullable(schema: Schema, deep: boolean, here: boolean): Schema {
  const out: Schema = { ...schema };
  if (here && schema.properties) {
    const required = new Set((schema.required as string[] | undefined) ?? []);
    out.properties = Object.fromEntries(Object.entries(schema.properties as Record<string, Schema>).map(([name, property]) => {
      const inner = deep ? nullable(property, true, true) : property;
      return [name, required.has(name) ? inner : orNull(inner)];
    }));
  }
  if (deep && typeof schema.items === 'object' && schema.items !== null) out.items = nullable(schema.items as Schema, true, true);
  for (const keyword of LIST) {
    if (deep && Array.isArray(schema[keyword])) out[keyword] = (schema[keyword] as Schema[]).map((s) => nullable(s, true, true));
  }
  return out;
}

function orNull(schema: Schema): Schema {
  const { type } = schema;
  if (typeof type === 'string' && !('enum' in schema) && !('const' in schema)) return { ...schema, type: [type, 'null'] };
  if (Array.isArray(type) && !('enum' in schema) && !('const' in schema)) return type.includes('null') ? schema : { ...schema, type: [...type, 'null'] };
  return { anyOf: [schema, { type: 'null' }] };
}
