// Path and query parameters of the OpenAPI document: path parameters by name (one meaning per
// name across the routes), and a listing's query from its ListSpec (api/account/list-options.ts).
import { ACCOUNT_NAME } from '../../core/accounts/names';
import { FILE_NAME } from '../../adapters/store/files';
import { SHARE_NETWORKS } from '../../core/tracking/share-networks';
import { MAX_LIMIT, type ListSpec } from '../account/list-options';

const id = (what: string) => ({ schema: { type: 'integer', minimum: 1 }, description: `The ${what}'s id.` });

/** Every path parameter the routes use; a route with another name fails the document's build. */
const PATH_PARAMETERS: Record<string, { schema: object; description: string }> = {
  account: { schema: { type: 'string', pattern: ACCOUNT_NAME.source }, description: 'The account\'s name; it must be the credentials\' own.' },
  id: id('resource'),
  keyId: id('API key'),
  listId: id('list'),
  memberId: id('list or interest'),
  contentId: id('campaign content'),
  ref: { schema: { type: 'string' }, description: 'The contact\'s id, or its email address.' },
  fileName: { schema: { type: 'string', pattern: FILE_NAME.source }, description: 'The file\'s name, as its task\'s `parameters.fileName` gives it.' },
  templatePath: { schema: { type: 'string', pattern: '^\\d+(/\\d+)?$' }, description: 'A template\'s or folder\'s id without its leading slash (`12`, or `3/12` inside the folder `/3`): it may span two path segments.' },
  batchId: { schema: { type: 'string', maxLength: 200 }, description: 'A send\'s `Herald-Batch-Id`: `<account>_transactional_<batch_code or request id>`.' },
  email: { schema: { type: 'string', maxLength: 320 }, description: 'An email address (URL-encoded), in any letter case.' },
  token: { schema: { type: 'string' }, description: 'The signed token of a tracking link, as the message carries it.' },
  network: { schema: { type: 'string', enum: [...SHARE_NETWORKS] }, description: 'The social network to share on.' },
  credentialA: { schema: { type: 'string' }, description: 'The first part of the trigger address\'s credential (8 hex digits), as `trigger_url` gives it.' },
  path: { schema: { type: 'string' }, description: 'Any address below /console: the console routes it in the browser.' },
  name: { schema: { type: 'string' }, description: 'A built file\'s name, as the console\'s page names it.' },
  credentialB: { schema: { type: 'string' }, description: 'The second part of the trigger address\'s credential (8 hex digits), as `trigger_url` gives it.' },
};

/** The path's `{name}` parameters, in order. */
export function pathParameters(path: string) {
  return [...path.matchAll(/\{([^}]+)\}/g)].map(([, name]) => {
    const known = PATH_PARAMETERS[name];
    if (!known) throw new Error(`OpenAPI: path parameter {${name}} of ${path} is not described in api/openapi/parameters.ts`);
    return { name, in: 'path', required: true, ...known };
  });
}

/** `limit`, `offset`, `sortby`, `sortdir`, `q` and the resource's `filter[…]`, as parseListOptions reads them. */
export function listingParameters(spec: ListSpec, q: string) {
  const query = (name: string, schema: object, description: string) => ({ name, in: 'query', required: false, schema, description });
  // An empty value is the default, as parseListOptions reads it (`?limit=` from a form left empty).
  const orEmpty = (name: string, schema: object, description: string) => ({ ...query(name, schema, description), allowEmptyValue: true });
  const filters = Object.keys(spec.filters ?? {});
  return [
    orEmpty('limit', { type: 'integer', minimum: 1, maximum: MAX_LIMIT, default: spec.defaultLimit }, 'Items per page.'),
    orEmpty('offset', { type: 'integer', minimum: 0, default: 0 }, 'Items skipped before the page.'),
    orEmpty('sortby', { type: 'string', enum: spec.sortFields, default: spec.sortFields[0] }, 'The sort field, in any letter case (`sortBy` too); ties go by id.'),
    orEmpty('sortdir', { type: 'string', enum: ['asc', 'desc'], default: spec.defaultDir }, 'The sort direction, in any letter case (`sortDir` too).'),
    orEmpty('q', { type: 'string', maxLength: 200 }, `Matches ${q}, ignoring letter case; \`*\` matches anything.`),
    ...filters.map((name) => query(`filter[${name}]`, { type: 'string' }, spec.filterDescriptions?.[name] ?? `Filter by ${name}.`)),
    ...(spec.unprefixedFilters ?? []).map((name) => query(name, { type: 'string' }, `The same as \`filter[${name}]\`.`)),
  ];
}
