import type { ContactState } from './types';

const LABELS: Record<ContactState, string> = { ACTIVE: 'Active', UNSUBSCRIBED: 'Unsubscribed', BOUNCED: 'Bounced', COMPLAINED: 'Complained' };

/** A contact's state as a coloured badge (the word is there too: colour is never the only cue). */
export function StateBadge({ state }: { state: ContactState }) {
  return <span class={`badge state-${state.toLowerCase()}`}>{LABELS[state] ?? state}</span>;
}
