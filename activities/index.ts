// Every activity the worker registers, each group built from the dependencies it needs.
import type { Store } from '../core/store';
import type { RelaySender } from '../core/transport';
import { createContactExportActivities } from './contact-export';
import { createContactImportActivities } from './contact-import';
import { createTaskActivities } from './tasks';
import { createSendActivities } from './sending';

export interface ActivityDeps { store: Store; transport: RelaySender; mtaHost: string; publicUrl: string }

export function createActivities(deps: ActivityDeps) {
  return {
    ...createSendActivities(deps),
    ...createTaskActivities(deps),
    ...createContactExportActivities(deps),
    ...createContactImportActivities(deps),
  };
}
