// What a route file declares about each of its routes for the OpenAPI document. The request
// body is the very schema object the route validates with, so the document cannot drift from
// the validation; test/integration/openapi.test.ts fails when a route has no declaration (or a
// declaration no route), and when a documented permission is not the one the route checks.
import type { ListSpec } from '../account/list-options';
import type { BodyType } from '../middleware/body';

/**
 * Who may call an operation, which decides its security schemes and its 401/403 answers:
 * the account API's credentials, a session token only (logout), a transactional key, or anyone.
 */
export type Auth = 'account' | 'session' | 'transactional' | 'none';

export interface OperationSpec {
  method: 'get' | 'post' | 'put' | 'delete';
  /** In OpenAPI form: `/v2/{account}/contacts/{ref}`. */
  path: string;
  /** The operationId: unique, for client generators. */
  id: string;
  tag: string;
  summary: string;
  description?: string;
  auth: Auth;
  /** Every permission the route's requirePermission middlewares demand. */
  permissions?: string[];
  /** Who else may call it, when permissions alone are not the rule. */
  access?: string;
  /** The schema object the route's validator was compiled from (not a copy). */
  body?: object;
  /** The route takes `null` as absent in its body: at the top level, or at every depth of objects (the send). */
  nullMeansAbsent?: 'top' | 'every';
  /** Media types of the body; by default JSON under /v1, JSON and form elsewhere (as readBody reads them). */
  bodyTypes?: BodyType[];
  /** A file upload instead of a body: `multipart/form-data` with the file in the part `field`. */
  upload?: { field: string; mediaType: string };
  /** A raw document as the body (a campaign content's `.html`): read as it is, of this media type only. */
  rawBody?: { mediaType: string; description: string };
  /** A listing: its query parameters come from the resource's ListSpec; `q` says what `q` matches. */
  listing?: { spec: ListSpec; q: string };
  /** Query parameters of its own (a listing's come from its ListSpec); a query is checked, so 400 is among its answers. */
  query?: QueryParameter[];
  /** Success status and what the answer holds. */
  status: number;
  response: string;
  /** Schema of the success answer; by default the account envelope (a page of it for listings). */
  responseSchema?: object;
  /** Media type of the success answer; by default application/json. */
  responseMediaType?: string;
  /** The success answer carries a Location header (creates). */
  location?: boolean;
  /** Other answers in shapes of their own (not errors): /readyz's 503. */
  responses?: Record<number, { description: string; schema?: object }>;
  /** Error statuses beyond those the operation's auth, body, listing and path parameters imply. */
  errors?: number[];
  /** Answers without the store or Temporal (the document, the console's files, liveness): never a 503. */
  offline?: boolean;
}

/** `allowEmptyValue`: an empty value (`?to=`) is taken as the parameter's absence, as a form leaves a field empty. */
export interface QueryParameter { name: string; schema: object; description: string; allowEmptyValue?: boolean }

type ResourceOperation = Omit<OperationSpec, 'tag' | 'auth'>;

/** The operations of one resource of the account API: one tag, the account's credentials. */
export function accountResource(tag: string, operations: ResourceOperation[]): OperationSpec[] {
  return operations.map((operation) => ({ tag, auth: 'account', ...operation }));
}
