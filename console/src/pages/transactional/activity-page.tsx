// The account's events, newest first: filters kept in the address, cursor paging (a stack of the
// pages seen, for "Newer"), and one event's every field in a panel.
import { useEffect, useState } from 'preact/hooks';
import { useApi } from '../../hooks';
import { Loading, Page } from '../../components/page';
import { CursorPager, Table } from '../../components/table';
import { Form, SelectField, TextField } from '../../components/forms';
import { useUrlQuery } from '../../components/url-query';
import { count, dateTime } from '../../format';
import { to } from '../../routes';
import { can } from '../../session';
import { TRACK_TYPES, type ActivityEvent } from './types';
import { filtersOf, firstPagePath, nextPagePath, SINCE_OPTIONS, type FeedFilters } from './activity-query';
import { EventDetail } from './event-detail';

export function Activity() {
  const [query, setQuery] = useUrlQuery();
  const applied = filtersOf(query);
  const [form, setForm] = useState<FeedFilters>(applied);
  const first = firstPagePath(applied);
  // The pages seen since the filters changed; the last is the one shown.
  const [pages, setPages] = useState<string[]>([first]);
  const [selected, setSelected] = useState<string | null>(null);
  useEffect(() => {
    setPages([first]);
    setSelected(null);
    setForm(applied);
  }, [first]);
  const current = pages[0] === first ? pages[pages.length - 1] : first;
  const feed = useApi<ActivityEvent[]>(current);
  const events = feed.data ?? [];
  const event = events.find((e) => e.track_id === selected);
  const set = (name: keyof FeedFilters) => (value: string) => setForm({ ...form, [name]: value });

  return (
    <Page title="Activity">
      {!can('activity:list') && <p class="muted">You lack the activity:list permission: the feed will be refused.</p>}
      <Form label="Filter the activity" onSubmit={() => setQuery({ ...form, after: form.since === 'after' ? form.after : undefined })}>
        <div class="filters">
          <SelectField label="Type" value={form.type} onChange={set('type')}
            options={[{ value: '', label: 'Every type' }, ...TRACK_TYPES.map((t) => ({ value: t, label: t.replace('track.mail.', '') }))]} />
          <TextField label="Batch" value={form.batch} onInput={set('batch')} placeholder="batch id" />
          <TextField label="Recipient email" value={form.email} onInput={set('email')} placeholder="* matches anything" />
          <SelectField label="Time range" value={form.since} onChange={set('since')} options={SINCE_OPTIONS} />
          {form.since === 'after' && <TextField label="After" type="datetime-local" value={form.after} onInput={set('after')} />}
          <button type="submit" class="primary">Filter</button>
          <button type="button" onClick={() => setQuery({})}>Clear</button>
        </div>
      </Form>
      <Loading loading={feed.loading} error={feed.error}>
        {feed.data && (
          <>
            <p class="muted" role="status">
              {matching(feed.envelope?.paging?.total ?? events.length)}{feed.loading ? ' · loading…' : ''}
            </p>
            <div class="feed">
              <Table caption="Events, newest first" rows={events} rowKey={(e) => e.track_id} empty="No events match these filters."
                columns={[
                  { label: 'Time', cell: (e) => <span class="nowrap">{dateTime(e.timestamp)}</span> },
                  { label: 'Type', cell: (e) => <span class="badge">{e.track_type.replace('track.mail.', '')}</span> },
                  { label: 'Recipient', cell: (e) => e.email ?? '—' },
                  { label: 'Batch', cell: (e) => (e.batch_id ? <a class="batch" title={e.batch_id} href={`${to('/activity')}?batch=${encodeURIComponent(e.batch_id)}`}>{e.batch_id}</a> : '—') },
                  {
                    label: 'Event', cell: (e) => (
                      <button type="button" class="link" aria-pressed={e.track_id === selected}
                        aria-label={`Details of ${e.track_type} for ${e.email ?? e.track_id}`}
                        onClick={() => setSelected(e.track_id === selected ? null : e.track_id)}>Details</button>
                    ),
                  },
                ]} />
              {event && <EventDetail event={event} onClose={() => setSelected(null)} />}
            </div>
            <CursorPager hasPrevious={pages.length > 1} next={nextPagePath(feed.envelope?.paging?.next)}
              onPrevious={() => { setSelected(null); setPages(pages.slice(0, -1)); }}
              onNext={() => { const next = nextPagePath(feed.envelope?.paging?.next); if (next) { setSelected(null); setPages([...pages, next]); } }} />
          </>
        )}
      </Loading>
    </Page>
  );
}

const matching = (total: number) => (total === 1 ? '1 event matches' : `${count(total)} events match`);
