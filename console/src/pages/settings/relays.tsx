// '/relays': the relays mail goes through (from the relays file: changed there, not here) with how
// the worker processes see them now, and where bounce and complaint reports come from.
import { Loading, Page, Section } from '../../components/page';
import { Table } from '../../components/table';
import { useApi } from '../../hooks';
import { accountPath } from '../../api';
import { count } from '../../format';
import { FeedbackSources } from './feedback-sources';
import type { Relay, RelaysOverview } from './types';
import './settings.css';

/** The workers renew their leases every second; a few seconds' lag is plenty for a person watching. */
const REFRESH_MS = 5000;

const CONDITION_LABELS: Array<[keyof Relay['conditions'], string]> = [
  ['streams', 'Streams'], ['accounts', 'Account'], ['senderDomains', 'Senders'], ['recipientDomains', 'Recipients'],
];

function Conditions({ relay }: { relay: Relay }) {
  const set = CONDITION_LABELS.filter(([key]) => relay.conditions[key] !== undefined);
  if (set.length === 0) return <span class="muted">Any message</span>;
  return (
    <ul class="conditions">
      {set.map(([key, label]) => <li key={key}>{label}: {relay.conditions[key]!.join(', ') || '—'}</li>)}
    </ul>
  );
}

/** A state in words (never a colour alone), coloured by how much it needs a look. */
export function RelayStateBadge({ state }: { state: Relay['state'] }) {
  return <span class={`badge relay-${state.replace(' ', '-')}`}>{state}</span>;
}

const limits = (relay: Relay) =>
  `${relay.ratePerSecond === undefined ? 'no rate limit' : `${count(relay.ratePerSecond)}/s`} · ${relay.maxConnections} connection${relay.maxConnections === 1 ? '' : 's'}`;

export function RelaysPage() {
  const overview = useApi<RelaysOverview>(accountPath('/relays'), {}, REFRESH_MS);
  const data = overview.data;
  return (
    <Page title="Relays and feedback">
      <Section title="Relays">
        <p class="muted">
          A message goes to the first relay whose conditions all match, and falls back to the next one that matches. The relays are set in the
          relays file (<code>HERALD_RELAYS_FILE</code>); states and counts are the worker processes' own, since each started.
        </p>
        <Loading loading={overview.loading} error={overview.error}>
          {data && (
            <Table caption="Relays" rows={data.relays} rowKey={(r) => r.name} empty="No relay takes this account's mail."
              columns={[
                { label: 'Relay', cell: (r) => <><strong>{r.name}</strong><br /><code class="muted">{r.host}</code></> },
                { label: 'Takes', cell: (r) => <Conditions relay={r} /> },
                { label: 'Limits', cell: limits },
                { label: 'State', cell: (r) => <RelayStateBadge state={r.state} /> },
                { label: 'Workers', cell: (r) => count(r.workers), numeric: true },
                { label: 'Sent', cell: (r) => count(r.counts.sent), numeric: true },
                { label: 'Deferred', cell: (r) => count(r.counts.deferred), numeric: true },
                { label: 'Failed', cell: (r) => count(r.counts.failed), numeric: true },
                { label: 'Trouble', cell: (r) => count(r.counts.trouble), numeric: true },
              ]} />
          )}
        </Loading>
      </Section>
      {data && <FeedbackSources feedback={data.feedback} mailbox={data.mailbox} />}
    </Page>
  );
}
