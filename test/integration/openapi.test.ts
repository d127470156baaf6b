// The OpenAPI document (GET /v2/openapi.json) on a running Herald: served without credentials,
// a valid OpenAPI 3.1 document whose schemas are valid JSON Schema 2020-12, complete (every
// route of the app, with the permissions it checks, and nothing else), and showing request
// bodies as the very schema objects ajv validates with.
import type Router from '@koa/router';
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { operations } from '../../api/openapi/operations';
import { sendSchema } from '../../api/transactional/send-schema';
import { compileRequestSchemas, isRequestSchema } from '../../api/validation';
import { startTestHerald, type TestHerald } from '../support/herald';

let herald: TestHerald;
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the document is walked by key
type Json = any;
let served: { status: number; contentType: string | null; text: string };
let document: Json;

beforeAll(async () => {
  herald = await startTestHerald();
  const response = await fetch(`${herald.baseUrl}/v2/openapi.json`);
  served = { status: response.status, contentType: response.headers.get('content-type'), text: await response.text() };
  document = JSON.parse(served.text);
});
afterAll(() => herald?.stop());

/** "METHOD /path" of every route the app answers, with the permissions its middleware checks. */
async function appRoutes(): Promise<Map<string, string[]>> {
  const app = await herald.herald.apiApp();
  const routes = new Map<string, string[]>();
  for (const middleware of app.middleware) {
    const router = (middleware as { router?: Router }).router;
    for (const layer of router?.stack ?? []) {
      const openapiPath = String(layer.path).replace(/[:*](\w+)/g, '{$1}'); // *name: a wildcard spanning segments
      const permissions = layer.stack.flatMap((fn) => ('permission' in fn ? [String(fn.permission)] : []));
      // Middleware (no methods) is not a route; HEAD is the GET that koa-router adds.
      for (const method of layer.methods.filter((m) => m !== 'HEAD')) routes.set(`${method} ${openapiPath}`, permissions);
    }
  }
  return routes;
}

function documentedOperations(): Map<string, Json> {
  const found = new Map<string, Json>();
  for (const [route, item] of Object.entries(document.paths as Record<string, Json>)) {
    for (const [method, operation] of Object.entries(item)) found.set(`${method.toUpperCase()} ${route}`, operation);
  }
  return found;
}

const operation = (id: string): Json => [...documentedOperations().values()].find((o) => o.operationId === id);
const jsonBody = (id: string): Json => operation(id).requestBody.content['application/json'].schema;
const declared = (id: string) => operations.find((o) => o.id === id)!;

describe('GET /v2/openapi.json', () => {
  it('is served without credentials, as JSON, and takes no account name', async () => {
    expect(served.status).toBe(200);
    expect(served.contentType).toMatch(/^application\/json/);
    expect(document.openapi).toBe('3.1.0');
    // Credentials change nothing, and a real account's path still answers its own route.
    const withBadKey = await fetch(`${herald.baseUrl}/v2/openapi.json`, { headers: { authorization: 'Bearer nope' } });
    expect(withBadKey.status).toBe(200);
    const acme = await herald.newAccount();
    const info = await fetch(`${herald.baseUrl}/v2/${acme.account}`, { headers: { authorization: `Bearer ${acme.apiKey}` } });
    expect(((await info.json()) as Json).data.code).toBe(acme.account);
    const post = await fetch(`${herald.baseUrl}/v2/openapi.json`, { method: 'POST' });
    expect(post.status).toBe(405);
    expect(((await post.json()) as Json).error.type).toBe('METHOD_NOT_ALLOWED');
  });

  it('is a valid OpenAPI 3.1 document (@seriousme/openapi-schema-validator, $refs resolved)', () => {
    // The validator is an ES module, which jest's module system does not load on Node 20: it
    // runs in a Node process of its own.
    const script = `import { Validator } from '@seriousme/openapi-schema-validator';
      let text = ''; for await (const chunk of process.stdin) text += chunk;
      process.stdout.write(JSON.stringify(await new Validator().validate(JSON.parse(text))));`;
    const output = execFileSync(process.execPath, ['--input-type=module', '-e', script], {
      input: served.text, cwd: path.resolve(__dirname, '../..'), encoding: 'utf8',
    });
    expect(JSON.parse(output)).toEqual({ valid: true });
  });

  it('holds schemas that compile as JSON Schema 2020-12 in ajv\'s strict mode', () => {
    // The validator above checks the document's structure, not the schemas in it.
    const ajv = new Ajv2020({ strict: true, allowUnionTypes: true });
    addFormats(ajv);
    for (const keyword of Object.keys(document)) ajv.addKeyword(keyword); // the document as a root the $refs resolve in
    ajv.addSchema(document, 'urn:herald:openapi');
    const pointers = [
      ...Object.keys(document.components.schemas).map((name) => ['components', 'schemas', name]),
      ...schemaPointers(document.paths, ['paths']),
      ...schemaPointers(document.components.responses, ['components', 'responses']),
    ];
    expect(pointers.length).toBeGreaterThan(100);
    for (const pointer of pointers) {
      const fragment = pointer.map((part) => encodeURIComponent(part.replace(/~/g, '~0').replace(/\//g, '~1'))).join('/');
      expect(() => ajv.compile({ $ref: `urn:herald:openapi#/${fragment}` })).not.toThrow();
    }
  });

  it('documents every route of the app, and only those', async () => {
    expect([...documentedOperations().keys()].sort()).toEqual([...(await appRoutes()).keys()].sort());
  });

  it('names the permissions each route checks', async () => {
    const documented = documentedOperations();
    for (const [route, permissions] of await appRoutes()) {
      expect([route, documented.get(route)['x-permissions'] ?? []]).toEqual([route, permissions]);
    }
  });

  it('has every request schema compile in ajv\'s strict mode, as JSON and as form (they compile on first use)', () => {
    // An invalid schema throws here; the count covers at least every documented body.
    expect(compileRequestSchemas()).toBeGreaterThanOrEqual(new Set(operations.map((o) => o.body).filter(Boolean)).size);
  });

  it('shows every request body as a schema object ajv validates with, in JSON and form for the account API', () => {
    const withBody = operations.filter((o) => o.body);
    expect(withBody.length).toBeGreaterThan(10);
    for (const { id, body, bodyTypes, path: route } of withBody) {
      expect([id, isRequestSchema(body!)]).toEqual([id, true]);
      const content = operation(id).requestBody.content;
      const expected = route.startsWith('/v1/') || bodyTypes?.join() === 'json' ? ['application/json'] : ['application/json', 'application/x-www-form-urlencoded'];
      expect(Object.keys(content)).toEqual(expected);
    }
  });

  /**
   * A schema with what the document adds taken back out (`null` beside a type, or as anyOf's second
   * branch) and ajv's `additionalProperties: false` dropped (removeAdditional ignores, not refuses,
   * what it does not name): what is left must be the same on both sides.
   */
  const comparable = (schema: unknown): unknown => {
    if (Array.isArray(schema)) return schema.map(comparable);
    if (typeof schema !== 'object' || schema === null) return schema;
    const object = schema as Json;
    if (Array.isArray(object.anyOf) && object.anyOf.length === 2 && object.anyOf[1].type === 'null' && Object.keys(object).length === 1) return comparable(object.anyOf[0]);
    return Object.fromEntries(Object.entries(object)
      .filter(([key, value]) => !(key === 'additionalProperties' && value === false))
      .map(([key, value]) => {
        if (key === 'type' && Array.isArray(value) && value.includes('null')) {
          const rest = value.filter((t: string) => t !== 'null');
          return [key, rest.length === 1 ? rest[0] : rest];
        }
        return [key, comparable(value)];
      }));
  };

  it('shows the send schema as ajv has it, its $defs moved to the components; null taken as absent at every depth, unknown properties ignored', () => {
    expect(declared('sendMail').body).toBe(sendSchema);
    const rewrite = (schema: object) => JSON.parse(JSON.stringify(schema).replaceAll('"#/$defs/', '"#/components/schemas/'));
    const { $defs, ...rest } = sendSchema;
    expect(comparable(jsonBody('sendMail'))).toEqual(comparable(rewrite(rest)));
    expect(document.components.schemas.modelValue).toEqual(rewrite($defs.modelValue));
    expect(jsonBody('sendMail').additionalProperties).toBeUndefined();
    expect(jsonBody('sendMail').properties.subject.type).toEqual(['string', 'null']);
    expect(jsonBody('sendMail').properties.from.properties.name.type).toEqual(['string', 'null']); // nested: null is absent there too
    expect(jsonBody('sendMail').properties.from.properties.email.type).toBe('string'); // required inside from
    expect(operation('sendMail').requestBody.description).toMatch(/ignored; `null` is the same as leaving a property out/);
  });

  it('shows account API bodies as ajv has them: unknown properties ignored, null as absent where the route takes it so', () => {
    for (const id of ['createList', 'updateList', 'createContact', 'updateContact', 'createUser', 'login']) {
      expect(comparable(jsonBody(id))).toEqual(comparable(declared(id).body));
      // The form's: the same, but an array takes one value too (`tags=a`).
      const form = operation(id).requestBody.content['application/x-www-form-urlencoded'].schema;
      const arrays = Object.entries(jsonBody(id).properties).filter(([, p]) => [(p as Json).type].flat().includes('array'));
      expect(form).toEqual({
        ...jsonBody(id),
        properties: { ...jsonBody(id).properties, ...Object.fromEntries(arrays.map(([name, p]) => [name, { anyOf: [p, (p as Json).items] }])) },
      });
      expect(jsonBody(id).additionalProperties).toBeUndefined();
    }
    expect(jsonBody('createList').required).toEqual(['name']);
    expect(jsonBody('createList').properties.description.type).toBe('string'); // lists refuse null
    expect(jsonBody('createContact').properties.firstName.type).toEqual(['string', 'null']);
    expect(jsonBody('createContact').properties.email.type).toBe('string'); // required
    expect(operation('createList').requestBody.required).toBe(true);
    expect(operation('updateList').requestBody.required).toBe(false);
    expect(operation('updateList').requestBody.content['application/x-www-form-urlencoded'].schema.properties.tags.anyOf[1]).toEqual(jsonBody('updateList').properties.tags.items);
  });

  it('gives listings the query parameters of their ListSpec', () => {
    const parameters = Object.fromEntries(operation('listContacts').parameters.map((p: Json) => [p.name, p]));
    expect(Object.keys(parameters)).toEqual([
      'account', 'limit', 'offset', 'sortby', 'sortdir', 'q', 'filter[state]', 'filter[domain]', 'filter[interest]', 'filter[list]', 'state',
    ]);
    expect(parameters.sortby.schema).toEqual({ type: 'string', enum: ['email', 'quality', 'lastModified'], default: 'email' });
    expect(parameters.limit.schema).toEqual({ type: 'integer', minimum: 1, maximum: 1000, default: 20 });
  });

  it('takes an empty value as absent wherever it says allowEmptyValue: each such GET answers 200 with all of them empty', async () => {
    const acme = await herald.newAccount();
    const checked: string[] = [];
    for (const [route, item] of Object.entries(document.paths as Record<string, Json>)) {
      const parameters: Json[] = item.get?.parameters ?? [];
      const empties = parameters.filter((p) => p.in === 'query' && p.allowEmptyValue).map((p) => `${encodeURIComponent(p.name)}=`);
      // Routes whose only path parameter is the account: the others answer 404 for ids that do not exist.
      if (empties.length === 0 || parameters.some((p) => p.in === 'path' && p.name !== 'account')) continue;
      const answer = await fetch(`${herald.baseUrl}${route.replace('{account}', acme.account)}?${empties.join('&')}`, {
        headers: { authorization: `Bearer ${acme.apiKey}` },
      });
      expect([route, answer.status]).toEqual([route, 200]);
      checked.push(route);
    }
    expect(checked).toEqual(expect.arrayContaining(['/v2/{account}/contacts', '/v2/{account}/activity', '/v2/{account}/stats/daily']));
  });

  it('describes security, errors and components in each interface\'s shape', () => {
    expect(Object.keys(document.components.securitySchemes).sort()).toEqual(['apiKey', 'authToken', 'tokenQuery', 'transactionalKey']);
    expect(operation('sendMail').security).toEqual([{ transactionalKey: [] }]);
    expect(operation('listContacts').security).toEqual([{ apiKey: [] }, { authToken: [] }, { tokenQuery: [] }]);
    expect(operation('login').security).toEqual([]);
    expect(operation('getOpenApiDocument').security).toEqual([]);
    expect(operation('sendMail').responses['400']).toEqual({ $ref: '#/components/responses/TransactionalError400' });
    expect(operation('getContact').responses['404']).toEqual({ $ref: '#/components/responses/AccountError404' });
    expect(operation('createList').responses['201'].headers.Location).toBeDefined();
    expect(document.components.schemas.AccountError.properties.type.enum).toContain('ACCOUNT_REQUIRED');
    expect(document.components.schemas.TransactionalError.properties.errors.additionalProperties.enum).toEqual([
      'required', 'required_at_least_one', 'max_length_exceeded', 'too_many_items', 'invalid_value',
    ]);
  });

  it('says what the tracking links and the hosted opt-in answer: their errors are HTML pages', async () => {
    const { account } = await herald.newAccount();
    /** The media types the document gives for an operation's answer of `status`, its $ref resolved. */
    const documented = (id: string, status: number): string[] => {
      const answer = operation(id).responses[String(status)];
      const resolved = answer.$ref ? document.components.responses[String(answer.$ref).split('/').pop()!] : answer;
      return Object.keys(resolved.content ?? {});
    };
    const html = { accept: 'text/html' };
    const cases: Array<[id: string, method: string, path: string, headers?: Record<string, string>]> = [
      ['trackOpen', 'GET', '/t/o/forged'],
      ['trackClick', 'GET', '/t/c/forged'],
      ['viewOnline', 'GET', '/t/v/forged'],
      ['shareMessage', 'GET', '/t/s/facebook/forged'],
      ['unsubscribePage', 'GET', '/t/u/forged'],
      ['unsubscribe', 'POST', '/t/u/forged'],
      ['getOptinForm', 'GET', `/v2/optin/${account}/999`],
      ['submitOptin', 'POST', `/v2/optin/${account}/999`],
      ['submitOptin', 'POST', `/v2/optin/${account}/999`, html],
      ['getOptinConfirmation', 'GET', `/v2/optin/${account}/999/confirm?token=unknown`],
      ['confirmOptin', 'POST', `/v2/optin/${account}/999/confirm`],
    ];
    for (const [id, method, route, headers] of cases) {
      const response = await fetch(`${herald.baseUrl}${route}`, { method, headers });
      const type = response.headers.get('content-type')?.split(';')[0];
      expect([id, response.status, documented(id, 404)]).toEqual([id, 404, expect.arrayContaining([type])]);
    }
    for (const id of ['trackOpen', 'trackClick', 'viewOnline', 'shareMessage', 'unsubscribePage', 'unsubscribe', 'getOptinForm', 'confirmOptin']) {
      expect([id, documented(id, 404)]).toEqual([id, ['text/html']]);
    }
    expect(documented('submitOptin', 404)).toEqual(['application/json', 'text/html']);
    expect(Object.keys(operation('trackOpen').responses['200'].content)).toEqual(['image/gif']);
    expect(operation('trackClick').responses['302']).toEqual({ description: expect.any(String), headers: { Location: expect.any(Object) } });
  });
});

/** Pointers to the schemas of parameters, bodies, answers and headers (values under a `schema` key). */
function schemaPointers(node: Json, at: string[]): string[][] {
  if (typeof node !== 'object' || node === null) return [];
  return Object.entries(node).flatMap(([key, value]) =>
    key === 'schema' ? [[...at, key]] : schemaPointers(value, [...at, key]));
}
