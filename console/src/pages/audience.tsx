// The audience pages (filled in by their own change).
import type { ConsoleRoute } from '../routes';
import { Page } from '../components/page';

function Placeholder() {
  return <Page title="audience"><p class="muted">Coming next.</p></Page>;
}

export const audienceRoutes: ConsoleRoute[] = [{ path: '/audience', component: Placeholder }];
