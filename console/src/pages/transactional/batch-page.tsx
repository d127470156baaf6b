// One batch: its figures, its messages with each one's outcome and events, and its run in the Temporal UI.
import { accountPath } from '../../api';
import { useApi } from '../../hooks';
import { Details, Loading, Page, Section } from '../../components/page';
import { Table } from '../../components/table';
import { count, dateTime } from '../../format';
import { to } from '../../routes';
import { temporalWorkflowUrl } from '../../settings';
import type { BatchDetail } from './types';

export function Batch({ id }: { id: string }) {
  const batch = useApi<BatchDetail>(accountPath(`/batches/${encodeURIComponent(id)}`));
  const b = batch.data;
  const workflowId = b?.temporal?.workflowId ?? b?.workflowId ?? null;
  // The run that sent the batch (its first, when several did); the workflow's latest before any sent.
  const temporal = workflowId ? temporalWorkflowUrl(workflowId, b?.temporal?.runIds?.[0]) : null;
  return (
    <Page title={`Batch ${id}`} actions={<a href={`${to('/activity')}?batch=${encodeURIComponent(id)}`}>Its events in the activity feed</a>}>
      <Loading loading={batch.loading} error={batch.error}>
        {b && (
          <>
            <Section title="Summary">
              <Details items={[
                ['Subject', b.subject ?? '—'],
                ['Created', dateTime(b.created)],
                ['Status', <span class="badge">{b.status}</span>],
                ['Source', b.source ?? '—'],
                ['Recipients', count(b.recipients)],
                ['Sent', count(b.sent)],
                ['Delivered', count(b.delivered)],
                ['Bounced', count(b.bounced)],
                ['Dropped', count(b.dropped)],
                ['Requests', count(b.requests)],
                ['Workflow', workflowId
                  ? (temporal ? <a href={temporal} target="_blank" rel="noopener noreferrer">{workflowId} in the Temporal UI</a> : <code>{workflowId}</code>)
                  : '—'],
              ]} />
            </Section>
            <Section title="Messages">
              {b.messagesTotal !== undefined && b.messagesTotal > b.messages.length && (
                <p class="muted">The first {count(b.messages.length)} of {count(b.messagesTotal)} messages; the activity feed filtered by this batch has them all.</p>
              )}
              <Table caption="The batch's messages and their outcomes" rows={b.messages} rowKey={(m) => m.mail_id} empty="No messages recorded yet."
                columns={[
                  { label: 'Recipient', cell: (m) => m.to },
                  { label: 'Outcome', cell: (m) => <span class="badge">{m.status}</span> },
                  {
                    label: 'Events', cell: (m) => (m.events.length === 0 ? '—' : (
                      <ul class="events">
                        {m.events.map((e, i) => <li key={i}>{e.type.replace('track.mail.', '')} · {dateTime(e.time)}</li>)}
                      </ul>
                    )),
                  },
                  { label: 'Message', cell: (m) => <code>{m.mail_id}</code> },
                ]} />
            </Section>
          </>
        )}
      </Loading>
    </Page>
  );
}
