// Every activity the worker registers, each group built from the dependencies it needs.
import type { Transporter } from 'nodemailer';
import type { Store } from '../core/store';
import { createContactExportActivities } from './contact-export';
import { createContactImportActivities } from './contact-import';
import { createTaskActivities } from './tasks';
import { createSendActivities } from './sending';

export interface ActivityDeps { store: Store; transport: Transporter; mtaHost: string; publicUrl: string }

export function createActivities(deps: ActivityDeps) {
  return {
    ...createSendActivities(deps),
    ...createTaskActivities(deps),
    ...createContactExportActivities(deps),
    ...createContactImportActivities(deps),
  };
}
