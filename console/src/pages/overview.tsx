// The overview (path '/'): the account's mail per day, its latest campaigns and transactional batches.
import type { ConsoleRoute } from '../routes';
import { Overview } from './overview/overview-page';

export const overviewRoutes: ConsoleRoute[] = [{ path: '/', component: Overview }];
