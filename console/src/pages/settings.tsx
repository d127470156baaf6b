// The settings area: webhook endpoints (their deliveries and discarded events), users and their API keys, relays and feedback sources, migrations in.
import type { ConsoleRoute } from '../routes';
import { MigrationPage } from './settings/migration';
import { MigrationsPage } from './settings/migrations';
import { RelaysPage } from './settings/relays';
import { UserPage } from './settings/user';
import { UsersPage } from './settings/users';
import { WebhookPage } from './settings/webhook';
import { WebhooksPage } from './settings/webhooks';

export const settingsRoutes: ConsoleRoute[] = [
  { path: '/webhooks', component: WebhooksPage },
  { path: '/webhooks/:id', component: WebhookPage },
  { path: '/users', component: UsersPage },
  { path: '/users/:id', component: UserPage },
  { path: '/relays', component: RelaysPage },
  { path: '/migrations', component: MigrationsPage },
  { path: '/migrations/:id', component: MigrationPage },
];
