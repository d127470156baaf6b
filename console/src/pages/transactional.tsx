// The transactional pages (filled in by their own change).
import type { ConsoleRoute } from '../routes';
import { Page } from '../components/page';

function Placeholder() {
  return <Page title="transactional"><p class="muted">Coming next.</p></Page>;
}

export const transactionalRoutes: ConsoleRoute[] = [{ path: '/transactional', component: Placeholder }];
