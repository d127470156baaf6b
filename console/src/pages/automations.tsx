// The automations pages (filled in by their own change).
import type { ConsoleRoute } from '../routes';
import { Page } from '../components/page';

function Placeholder() {
  return <Page title="automations"><p class="muted">Coming next.</p></Page>;
}

export const automationRoutes: ConsoleRoute[] = [{ path: '/automations', component: Placeholder }];
