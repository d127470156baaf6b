// The campaigns pages (filled in by their own change).
import type { ConsoleRoute } from '../routes';
import { Page } from '../components/page';

function Placeholder() {
  return <Page title="campaigns"><p class="muted">Coming next.</p></Page>;
}

export const campaignRoutes: ConsoleRoute[] = [{ path: '/campaigns', component: Placeholder }];
