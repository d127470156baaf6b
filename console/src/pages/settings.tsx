// The settings pages (filled in by their own change).
import type { ConsoleRoute } from '../routes';
import { Page } from '../components/page';

function Placeholder() {
  return <Page title="settings"><p class="muted">Coming next.</p></Page>;
}

export const settingsRoutes: ConsoleRoute[] = [{ path: '/settings', component: Placeholder }];
