// An automation's runs (one per matching trigger event), newest first, with their Temporal workflow.
import { useState } from 'preact/hooks';
import { Loading, Section } from '../../components/page';
import { OffsetPager, Table } from '../../components/table';
import { dateTime } from '../../format';
import { useApi } from '../../hooks';
import { temporalWorkflowUrl } from '../../settings';
import type { Run } from './types';

const LIMIT = 20;

function Workflow({ id }: { id: string }) {
  const url = temporalWorkflowUrl(id);
  return url ? <a href={url} target="_blank" rel="noopener noreferrer">{id}</a> : <code>{id}</code>;
}

export function Runs({ path }: { path: string }) {
  const [offset, setOffset] = useState(0);
  const runs = useApi<Run[]>(`${path}/runs`, { offset, limit: LIMIT });
  return (
    <Section title="Runs" actions={<button type="button" onClick={runs.reload}>Refresh runs</button>}>
      <Loading loading={runs.loading} error={runs.error}>
        {runs.data && (
          <Table caption="Runs of the automation, newest first" rows={runs.data} rowKey={(r) => r.id} empty="No runs yet: a trigger event with its key starts one."
            columns={[
              { label: 'Contact', cell: (r) => r.contact },
              { label: 'Started', cell: (r) => dateTime(r.started) },
              { label: 'Status', cell: (r) => <span class="badge">{r.status}</span> },
              { label: 'Step', cell: (r) => (r.step === null || r.step === undefined ? '—' : r.step), numeric: true },
              { label: 'Workflow', cell: (r) => <Workflow id={r.workflowId} /> },
            ]} />
        )}
        {runs.envelope?.paging && <OffsetPager offset={offset} limit={LIMIT} total={runs.envelope.paging.total} onOffset={setOffset} />}
      </Loading>
    </Section>
  );
}
