import { Page } from '../components/page';
import { to } from '../routes';

export function NotFound() {
  return (
    <Page title="Page not found">
      <p>There is no console page at this address. <a href={to('/')}>Go to the overview</a>.</p>
    </Page>
  );
}
