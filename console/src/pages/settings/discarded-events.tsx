// An endpoint's discarded events (its POST and the retry failed): choose some, or all on the page,
// and replay them (one signed request, like any delivery); the replay's answer is shown.
import { useState } from 'preact/hooks';
import { api } from '../../api';
import { ActionButton } from '../../components/buttons';
import { Checkbox, Notice } from '../../components/forms';
import { CodeBlock, Loading, Section } from '../../components/page';
import { OffsetPager, Table } from '../../components/table';
import { dateTime } from '../../format';
import { useApi } from '../../hooks';
import { can } from '../../session';
import type { Discarded, ReplayResult } from './types';

const LIMIT = 20;

function outcome(result: ReplayResult): string {
  const events = `${result.events} event${result.events === 1 ? '' : 's'}`;
  if (result.delivered) return `Replayed ${events}: delivered (HTTP ${result.status}).`;
  return `Replay of ${events} not delivered: ${result.error ?? (result.status === null ? 'no answer' : `HTTP ${result.status}`)}. The events stay discarded.`;
}

export function DiscardedEvents({ path, enabled, onReplayed }: { path: string; enabled: boolean; onReplayed: () => void }) {
  const [offset, setOffset] = useState(0);
  const [chosen, setChosen] = useState<string[]>([]);
  const [result, setResult] = useState<ReplayResult | null>(null);
  const list = useApi<Discarded[]>(`${path}/discarded`, { offset, limit: LIMIT });
  const rows = list.data ?? [];
  const allChosen = rows.length > 0 && rows.every((r) => chosen.includes(r.track_id));
  const choose = (trackId: string, on: boolean) => setChosen((c) => (on ? [...c, trackId] : c.filter((t) => t !== trackId)));
  const mayUpdate = can('webhooks:update');
  async function replay() {
    setResult(null);
    const { data } = await api.post<ReplayResult>(`${path}/replay`, { track_ids: chosen });
    setResult(data);
    setChosen([]);
    list.reload();
    onReplayed();
  }
  const why = !mayUpdate ? 'Your user lacks the permission webhooks:update'
    : !enabled ? 'The endpoint is disabled: enable it to replay its events' : 'Choose the events to replay first';
  return (
    <Section title="Discarded events" actions={<button type="button" onClick={list.reload}>Refresh</button>}>
      <p class="muted">Events whose request and retry failed. A replay sends the chosen ones again now, in one request signed with the current secret.</p>
      {result && <Notice>{outcome(result)}</Notice>}
      <Loading loading={list.loading} error={list.error}>
        {rows.length > 0 && (
          <div class="choose-all">
            <Checkbox label="Choose all on this page" checked={allChosen}
              onChange={(on) => setChosen(on ? [...new Set([...chosen, ...rows.map((r) => r.track_id)])] : chosen.filter((t) => !rows.some((r) => r.track_id === t)))} />
          </div>
        )}
        <Table caption="Discarded events, newest discard first" rows={rows} rowKey={(r) => r.track_id} empty="No discarded events."
          columns={[
            { label: 'Choose', cell: (r) => <Checkbox label={`Choose ${r.track_id}`} checked={chosen.includes(r.track_id)} onChange={(on) => choose(r.track_id, on)} /> },
            { label: 'Type', cell: (r) => r.type },
            { label: 'Event time', cell: (r) => dateTime(r.time) },
            { label: 'Discarded', cell: (r) => dateTime(r.discarded) },
            { label: 'Payload', cell: (r) => <details><summary>Show</summary><CodeBlock label={`The payload of ${r.track_id}`} text={JSON.stringify(r.payload, null, 2)} /></details> },
          ]} />
        {list.envelope?.paging && <OffsetPager offset={offset} limit={LIMIT} total={list.envelope.paging.total} onOffset={setOffset} />}
      </Loading>
      <ActionButton kind="primary" onAction={replay} disabled={!mayUpdate || !enabled || chosen.length === 0} why={why}>
        {`Replay chosen events (${chosen.length})`}
      </ActionButton>
    </Section>
  );
}
