// The overview pages (filled in by their own change).
import type { ConsoleRoute } from '../routes';
import { Page } from '../components/page';

function Placeholder() {
  return <Page title="overview"><p class="muted">Coming next.</p></Page>;
}

export const overviewRoutes: ConsoleRoute[] = [{ path: '/', component: Placeholder }];
