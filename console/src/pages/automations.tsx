// The automations area: the list with their counts, and an automation's steps and runs.
import type { ConsoleRoute } from '../routes';
import { AutomationPage } from './automations/detail';
import { AutomationsPage } from './automations/list';
import './automations/automations.css';

export const automationRoutes: ConsoleRoute[] = [
  { path: '/automations', component: AutomationsPage },
  { path: '/automations/:id', component: AutomationPage },
];
