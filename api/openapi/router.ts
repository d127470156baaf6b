import Router from '@koa/router';
import fs from 'node:fs';
import path from 'node:path';
import { buildDocument } from './document';
import type { OperationSpec } from './operation';

/**
 * GET /v2/openapi.json, without credentials. The app mounts this router before the account
 * routers, whose `/v2/:account` would otherwise take "openapi.json" for an account name (the
 * name `openapi` is reserved for that reason). Built and serialised once, at start.
 */
export function openapiRouter(operations: OperationSpec[]): Router {
  const json = JSON.stringify(buildDocument(operations, packageVersion()));
  const router = new Router();
  router.get('/v2/openapi.json', (ctx) => {
    ctx.type = 'application/json'; // before the body: a string body would otherwise be text/plain
    ctx.body = json;
  });
  return router;
}

export const openapiOperations: OperationSpec[] = [{
  method: 'get', path: '/v2/openapi.json', id: 'getOpenApiDocument', tag: 'Service', auth: 'none', offline: true,
  summary: 'This OpenAPI 3.1 document', status: 200, response: 'The document', responseSchema: { type: 'object' },
}];

/** Herald's version, from the package.json above this file (api/openapi/ in the sources, dist/api/openapi/ once built). */
function packageVersion(): string {
  for (let dir = __dirname; dir !== path.dirname(dir); dir = path.dirname(dir)) {
    const file = path.join(dir, 'package.json');
    if (fs.existsSync(file)) return String((JSON.parse(fs.readFileSync(file, 'utf8')) as { version?: unknown }).version ?? '0.0.0');
  }
  return '0.0.0';
}
