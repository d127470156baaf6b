// How validation schemas are shown in the OpenAPI document (api/openapi/schemas.ts): $defs move
// to the components, and what would mean something else in JSON Schema 2020-12 is refused;
// `additionalProperties: false` is not shown (ajv drops such properties, it does not refuse them);
// a route that takes null as absent shows its optional properties taking null.
import { toDocumentSchema, withNullAsAbsent } from '../../api/openapi/schemas';

describe('toDocumentSchema', () => {
  it('moves $defs to the components and points refs at them, at any depth, leaving the input alone', () => {
    const tree = { type: 'object', additionalProperties: { $ref: '#/$defs/node' } };
    const schema = {
      $defs: { node: { type: ['object', 'string'], additionalProperties: { $ref: '#/$defs/node' } } },
      type: 'object',
      properties: { root: { anyOf: [{ $ref: '#/$defs/node' }, { type: 'null' }] }, tree },
    };
    const before = structuredClone(schema);
    const components: Record<string, object> = {};
    expect(toDocumentSchema(schema, components)).toEqual({
      type: 'object',
      properties: {
        root: { anyOf: [{ $ref: '#/components/schemas/node' }, { type: 'null' }] },
        tree: { type: 'object', additionalProperties: { $ref: '#/components/schemas/node' } },
      },
    });
    expect(components).toEqual({ node: { type: ['object', 'string'], additionalProperties: { $ref: '#/components/schemas/node' } } });
    expect(schema).toEqual(before);
  });

  it('takes property names as names, not keywords, and values (enum, const) as they are', () => {
    const schema = {
      type: 'object',
      properties: { definitions: { type: 'string' }, items: { type: 'array', items: false }, $ref: { enum: [{ $ref: 'x' }] } },
    };
    expect(toDocumentSchema(schema, {})).toEqual(schema);
  });

  it('does not show additionalProperties: false, at any depth (ajv drops what a schema does not name); other additionalProperties stay', () => {
    const schema = {
      type: 'object', additionalProperties: false,
      properties: { inner: { type: 'object', additionalProperties: false, properties: { a: { type: 'string' } } }, map: { type: 'object', additionalProperties: { type: 'string' } } },
    };
    expect(toDocumentSchema(schema, {})).toEqual({
      type: 'object',
      properties: { inner: { type: 'object', properties: { a: { type: 'string' } } }, map: { type: 'object', additionalProperties: { type: 'string' } } },
    });
  });

  it('refuses what JSON Schema 2020-12 reads otherwise, and refs it cannot show', () => {
    const refused = [
      { type: 'array', items: [{ type: 'string' }] },
      { type: 'array', additionalItems: false },
      { definitions: { a: {} } },
      { dependencies: { a: ['b'] } },
      { $schema: 'http://json-schema.org/draft-07/schema#' },
      { $ref: '#/definitions/a' },
      { $ref: 'other.json#/a' },
      { $ref: '#/$defs/a/properties/b' },
    ];
    for (const schema of refused) expect(() => toDocumentSchema(schema, {})).toThrow(/^OpenAPI: /);
  });

  it('refuses two different schemas under one component name, and accepts the same one twice', () => {
    const components: Record<string, object> = {};
    toDocumentSchema({ $defs: { value: { type: 'string' } } }, components);
    expect(() => toDocumentSchema({ $defs: { value: { type: 'string' } } }, components)).not.toThrow();
    expect(() => toDocumentSchema({ $defs: { value: { type: 'number' } } }, components)).toThrow(/two different schemas/);
  });
});

describe('withNullAsAbsent', () => {
  const schema = {
    type: 'object',
    required: ['email'],
    properties: {
      email: { type: 'string' },
      name: { type: 'string' },
      kind: { type: 'string', enum: ['a', 'b'] },
      ids: { type: 'array', items: { type: 'object', required: ['id'], properties: { id: { type: 'integer' }, note: { type: ['string', 'number'] } } } },
      from: { type: 'object', required: ['email'], properties: { email: { type: 'string' }, name: { type: 'string' } } },
    },
  };

  it('lets optional properties take null at the top level only, required ones not; an enum is widened by anyOf', () => {
    const shown = withNullAsAbsent(schema, 'top') as typeof schema & { properties: Record<string, unknown> };
    expect(shown.properties.email).toEqual({ type: 'string' });
    expect(shown.properties.name).toEqual({ type: ['string', 'null'] });
    expect(shown.properties.kind).toEqual({ anyOf: [{ type: 'string', enum: ['a', 'b'] }, { type: 'null' }] });
    expect(shown.properties.from).toEqual({ type: ['object', 'null'], required: ['email'], properties: { email: { type: 'string' }, name: { type: 'string' } } });
  });

  it('at every depth: optional properties of nested objects and of array items too', () => {
    const shown = withNullAsAbsent(schema, 'every') as { properties: Record<string, { properties?: Record<string, unknown>; items?: { properties: Record<string, unknown> } }> };
    expect(shown.properties.from.properties).toEqual({ email: { type: 'string' }, name: { type: ['string', 'null'] } });
    expect(shown.properties.ids.items!.properties).toEqual({ id: { type: 'integer' }, note: { type: ['string', 'number', 'null'] } });
    expect(schema.properties.name).toEqual({ type: 'string' }); // the validation schema is left alone
  });
});
