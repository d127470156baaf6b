// Contact edits and imports while everything else runs: a contact's first name changed every few
// seconds through `POST /lists/{id}/contacts` (an upsert), and 100 new contacts imported every
// minute. The last edit answered 200 of each address is what the store must hold at the end.
import { callRecorded } from './answers';
import { accountUrl, bearer, every, SOAK_DOMAIN, type SoakContext } from './context';
import { contactAddress } from './campaign-load';

export interface ContactsRecord {
  /** Address → first name of its last edit answered 2xx (addresses with an uncertain edit left out). */
  lastName: Map<string, string>;
  /**
   * Addresses with an edit that may or may not have been applied: no answer, or a 503 (a store that
   * stops between the write and the read of the answer's view answers 503 after the write; the
   * client retries, and an upsert's retry lands on the same contact).
   */
  uncertain: Set<string>;
  /** Addresses of imports whose task was accepted (201). */
  imported: string[];
  importTasks: number[];
}

export function newContactsRecord(): ContactsRecord {
  return { lastName: new Map(), uncertain: new Set(), imported: [], importTasks: [] };
}

export function contactEdits(ctx: SoakContext, listId: number, contacts: number, record: ContactsRecord, random: () => number): Promise<void> {
  return every(ctx, 3000, async (n) => {
    const email = contactAddress(Math.floor(random() * contacts));
    const firstName = `Edited${n}`;
    const answer = await callRecorded(ctx.answers, 'contact_edit', accountUrl(ctx, `/lists/${listId}/contacts`), { headers: bearer(ctx.apiKey), json: { email, firstName } });
    if (answer && answer.status >= 200 && answer.status < 300) record.lastName.set(email, firstName);
    else if (!answer || answer.status >= 500) record.uncertain.add(email); // a 4xx changed nothing
  });
}

export function contactImports(ctx: SoakContext, listId: number, record: ContactsRecord): Promise<void> {
  return every(ctx, 60_000, async (n) => {
    const emails = Array.from({ length: 100 }, (_, i) => `n${n}x${i}@${SOAK_DOMAIN}`);
    const answer = await callRecorded(ctx.answers, 'contact_import', accountUrl(ctx, '/contacts/import'), {
      headers: bearer(ctx.apiKey), json: { sourceRaw: ['email', ...emails].join('\n'), list: listId },
    });
    if (answer?.status !== 201) return;
    record.imported.push(...emails);
    record.importTasks.push((JSON.parse(answer.text) as { task: { id: number } }).task.id);
  });
}
