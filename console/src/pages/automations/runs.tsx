// An automation's runs (one per matching trigger event), newest first, with their Temporal workflow.
import { useState } from 'preact/hooks';
import { SelectField } from '../../components/forms';
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

function stepOf(run: Run): string {
  if (run.step === null || run.step === undefined) return '—';
  return `${run.step + 1}${run.steps ? ` of ${run.steps}` : ''}${run.stepType ? ` (${run.stepType})` : ''}`;
}

export function Runs({ path }: { path: string }) {
  const [offset, setOffset] = useState(0);
  const [status, setStatus] = useState('');
  const runs = useApi<Run[]>(`${path}/runs`, { offset, limit: LIMIT, 'filter[status]': status });
  return (
    <Section title="Runs" actions={<button type="button" onClick={runs.reload}>Refresh runs</button>}>
      <div class="filters">
        <SelectField label="Run status" value={status} onChange={(v) => { setStatus(v); setOffset(0); }}
          options={[{ value: '', label: 'All' }, ...['running', 'completed', 'failed', 'cancelled'].map((s) => ({ value: s, label: s }))]} />
      </div>
      <Loading loading={runs.loading} error={runs.error}>
        {runs.data && (
          <Table caption="Runs of the automation, newest first" rows={runs.data} rowKey={(r) => r.id} empty="No runs yet: a trigger event with its key starts one."
            columns={[
              { label: 'Contact', cell: (r) => r.contact },
              { label: 'Started', cell: (r) => dateTime(r.started) },
              { label: 'Ended', cell: (r) => dateTime(r.ended) },
              { label: 'Status', cell: (r) => <><span class="badge">{r.status}</span>{r.reason && <span class="muted"> {r.reason}</span>}</> },
              { label: 'Step', cell: stepOf },
              { label: 'Workflow', cell: (r) => <Workflow id={r.workflowId} /> },
            ]} />
        )}
        {runs.envelope?.paging && <OffsetPager offset={offset} limit={LIMIT} total={runs.envelope.paging.total} onOffset={setOffset} />}
      </Loading>
    </Section>
  );
}
