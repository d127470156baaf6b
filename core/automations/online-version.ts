// The online version of an automation's message (`/t/v/{token}` whose request id is an
// automation's): rendered again from the run's step (its snapshot), the event's context and the
// contact as it is now, without the open pixel. A contact changed since shows its current values.
import type { Store } from '../../adapters/store/store';
import type { LinkContext } from '../content/personalise';
import type { MessageRef } from '../content/tracking/token';
import { automationModel, eventContext, renderAutomationCopy } from './message';
import { automationDocId, automationRunDocId, triggerEventDocId } from './model';

export type AutomationOnlineVersion = { type: 'html' | 'text'; body: string };

/** The copy of email step `ref.index` of the run; undefined when the run, its event or the contact is gone. */
export async function automationOnlineVersion(
  store: Store, links: LinkContext, ref: MessageRef, run: { automationId: number; eventId: string },
): Promise<AutomationOnlineVersion | undefined> {
  const { account } = ref;
  const [doc, event, automation, fields] = await Promise.all([
    store.automationRuns.findOne({ _id: automationRunDocId(account, run.automationId, run.eventId), account }),
    store.triggerEvents.findOne({ _id: triggerEventDocId(account, run.eventId), account }),
    store.automations.findOne({ _id: automationDocId(account, run.automationId), account }, { projection: { tags: 1 } }),
    store.fields.find({ account }).toArray(),
  ]);
  const step = doc?.steps[ref.index];
  if (!doc || !event || step?.type !== 'email') return undefined;
  const contact = await store.contacts.findOne({ account, email: doc.email });
  if (!contact) return undefined;
  const messageRef = { account, ...run, step: ref.index, email: doc.email, tags: automation?.tags ?? [] };
  const { copy } = renderAutomationCopy(step, messageRef, contact, automationModel(eventContext(event), contact, fields), links, false);
  return { type: 'html', body: copy.html ?? '' };
}
