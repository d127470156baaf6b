// An endpoint's delivery log: every request Herald made to it (time, answer, event count), newest first.
import { useState } from 'preact/hooks';
import { Loading, Section } from '../../components/page';
import { OffsetPager, Table } from '../../components/table';
import { count, dateTime } from '../../format';
import { useApi } from '../../hooks';
import type { Delivery } from './types';

const LIMIT = 20;
const RESULTS: Record<string, string> = { delivered: 'Delivered', failed: 'Failed', discarded: 'Discarded', replayed: 'Replayed' };

function answer(entry: Delivery): string {
  if (entry.outcome === 'discarded') return entry.error ?? 'Events dropped';
  const status = entry.status === null ? 'No answer' : `HTTP ${entry.status}`;
  if (!entry.error) return status;
  return entry.status !== null && entry.error.includes(String(entry.status)) ? entry.error : `${status}: ${entry.error}`;
}

export function DeliveryLog({ path }: { path: string }) {
  const [offset, setOffset] = useState(0);
  const log = useApi<Delivery[]>(`${path}/deliveries`, { offset, limit: LIMIT });
  return (
    <Section title="Delivery log" actions={<button type="button" onClick={log.reload}>Refresh log</button>}>
      <Loading loading={log.loading} error={log.error}>
        {log.data && (
          <Table caption="Requests made to the endpoint, newest first" rows={log.data} rowKey={(e) => e.id} empty="No requests yet."
            columns={[
              { label: 'Time', cell: (e) => dateTime(e.time) },
              { label: 'Result', cell: (e) => `${RESULTS[e.outcome] ?? e.outcome}${e.replay ? ' (replay)' : ''}` },
              { label: 'Attempt', cell: (e) => (e.replay ? 'replay' : e.attempt), numeric: true },
              { label: 'Answer', cell: answer },
              { label: 'Events', cell: (e) => count(e.events), numeric: true },
            ]} />
        )}
        {log.envelope?.paging && <OffsetPager offset={offset} limit={LIMIT} total={log.envelope.paging.total} onOffset={setOffset} />}
      </Loading>
    </Section>
  );
}
