// Builds the OpenAPI 3.1 document from the routes' declarations (operation.ts). Everything that
// can be derived is: parameters from the path and the ListSpec, security and the usual error
// answers from the operation's auth, body and path, error shapes from the path (as render.ts
// picks them; pages for the links people open in a browser), media types from the answers'
// schemas, request bodies from the validators' own schemas.
import type { BodyType } from '../middleware/body';
import { isTransactionalPath } from '../render';
import { errorResponse, PAGE_ANSWER, ref, schemas, securitySchemes, type ErrorShape, type SecurityScheme } from './components';
import type { Auth, OperationSpec } from './operation';
import { listingParameters, pathParameters } from './parameters';
import { toDocumentSchema, withNullAsAbsent } from './schemas';

const SECURITY: Record<Auth, SecurityScheme[]> = {
  account: ['apiKey', 'authToken', 'tokenQuery'],
  session: ['authToken', 'tokenQuery'],
  transactional: ['transactionalKey'],
  none: [],
};
const JSON_TYPE = 'application/json';
const MEDIA_TYPES: Record<BodyType, string> = { json: JSON_TYPE, form: 'application/x-www-form-urlencoded' };

const DESCRIPTION = `Herald's HTTP interfaces: the transactional API (\`/v1\`) and the account REST API (\`/v2\`).

Request bodies are validated with the schemas shown here. Keys a schema does not name are ignored
(dropped before anything is stored), not refused; \`null\` means absent in send requests and contacts.
Account API answers use the envelope \`{href, success, data, paging?, sort?}\`, errors
\`{href, success: false, error: {status, type, userMessage, validationErrors?}}\`; transactional
errors are \`{success: false, error: {status, type, message, errors?}}\`. The tracking links (\`/t/…\`) and the
hosted opt-in's pages answer errors with a small HTML page, as people open them in a browser.`;

interface Components { schemas: Record<string, object>; responses: Record<string, object>; securitySchemes: typeof securitySchemes }

/** The document; throws when two routes share an operationId or a path and method, or a path parameter is unknown. */
export function buildDocument(operations: OperationSpec[], version: string): object {
  const components: Components = { schemas: { ...schemas }, responses: {}, securitySchemes };
  const paths: Record<string, Record<string, object>> = {};
  const ids = new Set<string>();
  for (const operation of operations) {
    const item = (paths[operation.path] ??= {});
    if (ids.has(operation.id) || item[operation.method]) {
      throw new Error(`OpenAPI: ${operation.method.toUpperCase()} ${operation.path} (${operation.id}) is declared twice`);
    }
    ids.add(operation.id);
    item[operation.method] = toOperation(operation, components);
  }
  return {
    openapi: '3.1.0',
    info: { title: 'Herald', version, description: DESCRIPTION, license: { name: 'MIT', identifier: 'MIT' } },
    tags: [...new Set(operations.map((o) => o.tag))].map((name) => ({ name })),
    paths,
    components,
  };
}

function toOperation(operation: OperationSpec, components: Components): object {
  const transactional = isTransactionalPath(operation.path);
  const shape = errorShape(operation);
  const parameters = [
    ...pathParameters(operation.path),
    ...(operation.listing ? listingParameters(operation.listing.spec, operation.listing.q) : []),
    ...(operation.query ?? []).map((parameter) => ({ in: 'query', required: false, ...parameter })),
  ];
  const description = [
    operation.description,
    operation.permissions?.length ? `Requires ${operation.permissions.map((p) => `\`${p}\``).join(' and ')}.` : undefined,
    operation.access,
  ].filter(Boolean).join('\n\n');
  return {
    operationId: operation.id,
    tags: [operation.tag],
    summary: operation.summary,
    ...(description ? { description } : {}),
    ...(operation.permissions ? { 'x-permissions': operation.permissions } : {}),
    security: SECURITY[operation.auth].map((scheme) => ({ [scheme]: [] })),
    ...(parameters.length > 0 ? { parameters } : {}),
    ...(operation.body ? { requestBody: requestBody(operation, operation.body, transactional, components) } : {}),
    ...(operation.upload ? { requestBody: uploadBody(operation.upload) } : {}),
    ...(operation.rawBody ? { requestBody: { required: false, content: { [operation.rawBody.mediaType]: { schema: { type: 'string', description: operation.rawBody.description } } } } } : {}),
    responses: {
      [operation.status]: success(operation, shape),
      ...Object.fromEntries(Object.entries(operation.responses ?? {}).map(([status, r]) => [status, other(Number(status), r, shape)])),
      ...Object.fromEntries(errorStatuses(operation).map((status) => [status, errorRef(status, shape, components)])),
    },
  };
}

function requestBody(operation: OperationSpec, body: object, transactional: boolean, components: Components) {
  const converted = toDocumentSchema(body, components.schemas);
  const schema = operation.nullMeansAbsent ? withNullAsAbsent(converted, operation.nullMeansAbsent) : converted;
  const types = operation.bodyTypes ?? (transactional ? ['json'] : ['json', 'form']);
  const required = (body as { required?: unknown[] }).required;
  return {
    description: `Properties the schema does not name are ignored${operation.nullMeansAbsent ? '; `null` is the same as leaving a property out' : ''}.`,
    required: Array.isArray(required) && required.length > 0,
    content: Object.fromEntries(types.map((type) => [MEDIA_TYPES[type], { schema: type === 'form' ? formSchema(schema) : schema }])),
  };
}

/**
 * A form body's view of a schema: an array property takes one value too (`tags=a`, which PHP
 * clients send beside `tags[]=a`, is a one-element array: api/validation.ts coerces it), so each
 * inline array schema becomes "the array, or one of its items". Referenced components are shared
 * with the JSON body and left as they are.
 */
function formSchema(schema: object): object {
  if (Array.isArray(schema)) return schema.map(formSchema);
  if (typeof schema !== 'object' || schema === null) return schema;
  const node = Object.fromEntries(Object.entries(schema).map(([key, value]) => [key, key === 'enum' || key === 'const' ? value : formSchema(value as object)]));
  const type = (node as { type?: unknown }).type;
  const isArray = type === 'array' || (Array.isArray(type) && type.includes('array'));
  return isArray && 'items' in node ? { anyOf: [node, node.items] } : node;
}

/** A multipart body of one file part (the part's bytes are the file, as OpenAPI 3.1 writes binary content). */
function uploadBody(upload: { field: string; mediaType: string }) {
  return {
    required: true,
    content: {
      'multipart/form-data': {
        schema: { type: 'object', required: [upload.field], properties: { [upload.field]: { type: 'string', contentMediaType: upload.mediaType } } },
      },
    },
  };
}

const isRedirect = (status: number) => status >= 300 && status < 400;
/** A redirect's answer is its Location; the body is empty. */
const redirect = (description: string) => ({ description, headers: { Location: { description: 'Where the redirect goes.', schema: { type: 'string' } } } });

function success(operation: OperationSpec, shape: ErrorShape) {
  if (isRedirect(operation.status)) return redirect(operation.response);
  const schema = operation.responseSchema ?? ref(operation.listing ? 'PageEnvelope' : 'Envelope');
  const headers = operation.location ? { Location: { description: 'The path of the new resource.', schema: { type: 'string' } } } : undefined;
  const mediaType = operation.responseMediaType ?? mediaTypeOf(schema);
  // A route that answers browsers with pages gives them its success as a page too (the opt-in's submit).
  const page = shape === 'account-or-page' && mediaType === JSON_TYPE ? { 'text/html': { schema: PAGE_ANSWER } } : {};
  return { description: operation.response, ...(headers ? { headers } : {}), content: { [mediaType]: { schema }, ...page } };
}

/** Another answer of the operation (a 303, a 410); without a schema of its own, a page route's error status is a page. */
function other(status: number, r: { description: string; schema?: object }, shape: ErrorShape) {
  if (isRedirect(status) && !r.schema) return redirect(r.description);
  if (!r.schema && status >= 400 && shape === 'page') return answer(r.description, PAGE_ANSWER, undefined, 'text/html');
  return answer(r.description, r.schema, undefined, r.schema ? mediaTypeOf(r.schema) : undefined);
}

/** A string schema naming its `contentMediaType` is a document of that type (a page, the pixel), not JSON. */
function mediaTypeOf(schema: object): string {
  const { type, contentMediaType } = schema as { type?: unknown; contentMediaType?: unknown };
  return type === 'string' && typeof contentMediaType === 'string' ? contentMediaType : JSON_TYPE;
}

function answer(description: string, schema: object | undefined, headers?: object, mediaType = JSON_TYPE) {
  return {
    description,
    ...(headers ? { headers } : {}),
    ...(schema ? { content: { [mediaType]: { schema } } } : {}),
  };
}

/**
 * How the operation's errors come. The tracking links (api/tracking/router.ts) answer every
 * error with a page, people open them in a browser; so do the hosted opt-in's pages
 * (api/optin/router.ts), whose form submit, which answers JSON to the original's script, gives
 * pages to a browser (`Accept: text/html`, or `reply=html`). Everything else answers JSON in its
 * interface's shape (api/render.ts). test/integration/openapi.test.ts checks this against the
 * answers themselves.
 */
function errorShape(operation: OperationSpec): ErrorShape {
  if (isTransactionalPath(operation.path)) return 'transactional';
  if (operation.path.startsWith('/t/')) return 'page';
  if (operation.path.startsWith('/v2/optin/')) {
    const answersJson = !operation.responseMediaType && mediaTypeOf(operation.responseSchema ?? {}) === JSON_TYPE;
    return answersJson ? 'account-or-page' : 'page';
  }
  return 'account';
}

/** The error answers every such operation can give, besides its own. */
function errorStatuses(operation: OperationSpec): number[] {
  const statuses = new Set(operation.errors);
  if (operation.auth !== 'none') statuses.add(401);
  if (operation.auth === 'account') statuses.add(403); // another account's path, or a missing permission
  if (operation.body || operation.upload || operation.rawBody) [400, 413, 415].forEach((s) => statuses.add(s));
  if (operation.listing || operation.query) statuses.add(400);
  if (pathParameters(operation.path).some((p) => p.name !== 'account')) statuses.add(404);
  // The store or Temporal down: 503, retry later (/readyz says so in an answer of its own). No
  // operation declares 500: Herald answers none (npm run api-fuzz fails on one).
  if (!operation.offline && !operation.responses?.[503]) statuses.add(503);
  return [...statuses].sort((a, b) => a - b);
}

const SHAPE_NAMES: Record<ErrorShape, string> = { transactional: 'Transactional', account: 'Account', page: 'Page', 'account-or-page': 'AccountOrPage' };

/** Error answers are shared components: one per status and shape. */
function errorRef(status: number, shape: ErrorShape, components: Components) {
  const name = `${SHAPE_NAMES[shape]}Error${status}`;
  components.responses[name] ??= errorResponse(status, shape);
  return { $ref: `#/components/responses/${name}` };
}
