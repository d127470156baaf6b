// How validation schemas are shown in the OpenAPI document (api/openapi/schemas.ts): $defs move
// to the components, and what would mean something else in JSON Schema 2020-12 is refused.
import { toDocumentSchema } from '../../api/openapi/schemas';

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
      additionalProperties: false,
    };
    expect(toDocumentSchema(schema, {})).toEqual(schema);
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
