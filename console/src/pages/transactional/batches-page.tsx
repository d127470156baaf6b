// The account's transactional batches, newest first, paged by offset.
import { useEffect, useState } from 'preact/hooks';
import { accountPath } from '../../api';
import { useApi } from '../../hooks';
import { Loading, Page } from '../../components/page';
import { OffsetPager, Table } from '../../components/table';
import { Form, TextField } from '../../components/forms';
import { useUrlQuery } from '../../components/url-query';
import { count, dateTime } from '../../format';
import { to } from '../../routes';
import type { BatchSummary } from './types';

const LIMIT = 25;

export function Batches() {
  const [query, setQuery] = useUrlQuery();
  const offset = Number(query.offset) > 0 ? Math.floor(Number(query.offset)) : 0;
  const batches = useApi<BatchSummary[]>(accountPath('/batches'), { q: query.q, offset, limit: LIMIT });
  const [q, setQ] = useState(query.q ?? '');
  useEffect(() => setQ(query.q ?? ''), [query.q]);
  return (
    <Page title="Batches">
      <Form label="Search batches" onSubmit={() => setQuery({ q })}>
        <div class="filters">
          <TextField label="Batch id contains" type="search" value={q} onInput={setQ} />
          <button type="submit" class="primary">Search</button>
          {query.q && <button type="button" onClick={() => setQuery({})}>Clear</button>}
        </div>
      </Form>
      <Loading loading={batches.loading} error={batches.error}>
        {batches.data && (
          <>
            <Table caption="Transactional batches, newest first" rows={batches.data} rowKey={(b) => b.id} empty={query.q ? 'No batch matches.' : 'No transactional sends yet.'}
              columns={[
                { label: 'Batch', cell: (b) => <a href={to(`/batches/${encodeURIComponent(b.id)}`)}>{b.id}</a> },
                { label: 'Subject', cell: (b) => b.subject ?? '—' },
                { label: 'Created', cell: (b) => dateTime(b.created) },
                { label: 'Status', cell: (b) => <span class="badge">{b.status}</span> },
                { label: 'Recipients', numeric: true, cell: (b) => count(b.recipients) },
                { label: 'Sent', numeric: true, cell: (b) => count(b.sent) },
                { label: 'Delivered', numeric: true, cell: (b) => count(b.delivered) },
                { label: 'Bounced', numeric: true, cell: (b) => count(b.bounced) },
                { label: 'Dropped', numeric: true, cell: (b) => count(b.dropped) },
              ]} />
            <OffsetPager offset={offset} limit={LIMIT} total={batches.envelope?.paging?.total ?? 0}
              onOffset={(next) => setQuery({ q: query.q, offset: next ? String(next) : undefined })} />
          </>
        )}
      </Loading>
    </Page>
  );
}
