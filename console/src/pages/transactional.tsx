// The transactional pages: the activity feed, batches, the suppression list, keys and DKIM.
import type { ConsoleRoute } from '../routes';
import { Activity } from './transactional/activity-page';
import { Batches } from './transactional/batches-page';
import { Batch } from './transactional/batch-page';
import { Suppressions } from './transactional/suppressions-page';
import { Sending } from './transactional/sending-page';
import './transactional/transactional.css';

export const transactionalRoutes: ConsoleRoute[] = [
  { path: '/activity', component: Activity },
  { path: '/batches', component: Batches },
  { path: '/batches/:id', component: Batch },
  { path: '/suppressions', component: Suppressions },
  { path: '/sending', component: Sending },
];
