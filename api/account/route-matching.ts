// How the account routers pick the routes of a path: two rules their path patterns cannot say
// (path-to-regexp 8 has no patterns inside parameters).
// - `/v2/{account}` is an account name only: `/v2/login` or `/v2/openapi.json` is never an
//   account's, so `GET /v2/login` answers 405 from the login router, not 403 about an account
//   named "login".
// - A route with fewer parameters owns the paths it matches: `/contacts/export` (POST) is not the
//   contact `:ref` "export", so OPTIONS lists POST alone and `GET /contacts/export` answers 405.
import type Router from '@koa/router';
import { isAccountName } from '../../core/accounts/names';

type MatchResult = ReturnType<Router['match']>;
type Layer = MatchResult['path'][number];

const ACCOUNT_SEGMENT = /^\/v2\/([^/]*)/;

export function matchAccountRoutes(router: Router): Router {
  const match = router.match.bind(router);
  router.match = (path: string, method: string): MatchResult => {
    const account = ACCOUNT_SEGMENT.exec(path)?.[1];
    if (account !== undefined && !isAccountName(decodeSegment(account))) return { path: [], pathAndMethod: [], route: false };
    const found = match(path, method);
    const routes = found.path.filter(isRoute);
    if (routes.length < 2) return found;
    const fewest = Math.min(...routes.map((layer) => layer.paramNames.length));
    const kept = (layer: Layer) => !isRoute(layer) || layer.paramNames.length === fewest;
    const pathAndMethod = found.pathAndMethod.filter(kept);
    return { path: found.path.filter(kept), pathAndMethod, route: pathAndMethod.some(isRoute) };
  };
  return router;
}

/** A route (with methods), not a middleware layer (`router.use`), which every path it covers keeps. */
function isRoute(layer: Layer): boolean {
  return layer.methods.length > 0;
}

function decodeSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}
