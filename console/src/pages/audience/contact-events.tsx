// A contact's events: GET /activity with `q` = its email, newest first, paged by the feed's cursor.
import { useState } from 'preact/hooks';
import { accountPath } from '../../api';
import { useApi } from '../../hooks';
import { dateTime } from '../../format';
import { can } from '../../session';
import { Loading, Section } from '../../components/page';
import { CursorPager, Table } from '../../components/table';

interface Event { track_id: string; track_type: string; timestamp: string; batch_id?: string; mail_id?: string; mail_type?: string }

/** The cursor of the feed's `paging.next` link (the rest of the link repeats this page's query). */
function cursorOf(next: string | undefined): string | null {
  if (!next) return null;
  try {
    return new URL(next, location.origin).searchParams.get('cursor');
  } catch {
    return null;
  }
}

export function ContactEvents({ email }: { email: string }) {
  const [cursors, setCursors] = useState<string[]>([]);
  const allowed = can('activity:list');
  const events = useApi<Event[]>(allowed ? accountPath('/activity') : null, { q: email, limit: 20, cursor: cursors[cursors.length - 1] });
  const next = cursorOf(events.envelope?.paging?.next);
  return (
    <Section title="Events">
      {!allowed ? <p class="muted">Seeing events needs the permission activity:list.</p> : (
        <Loading loading={events.loading} error={events.error}>
          {events.data && (
            <>
              <Table caption={`Events of ${email}`} rows={events.data} rowKey={(e) => e.track_id} empty="No events for this contact yet."
                columns={[
                  { label: 'Time', cell: (e) => dateTime(e.timestamp) },
                  { label: 'Event', cell: (e) => <span class="badge">{e.track_type}</span> },
                  { label: 'Mail type', cell: (e) => e.mail_type ?? '—' },
                  { label: 'Batch', cell: (e) => <code>{e.batch_id ?? '—'}</code> },
                ]} />
              <CursorPager hasPrevious={cursors.length > 0} next={next}
                onPrevious={() => setCursors(cursors.slice(0, -1))} onNext={() => next && setCursors([...cursors, next])} />
            </>
          )}
        </Loading>
      )}
    </Section>
  );
}
