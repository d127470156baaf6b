// The account's transactional batches, newest first, paged by offset.
import { accountPath } from '../../api';
import { useApi } from '../../hooks';
import { Loading, Page } from '../../components/page';
import { OffsetPager, Table } from '../../components/table';
import { useUrlQuery } from '../../components/url-query';
import { count, dateTime } from '../../format';
import { to } from '../../routes';
import type { BatchSummary } from './types';

const LIMIT = 25;

export function Batches() {
  const [query, setQuery] = useUrlQuery();
  const offset = Number(query.offset) > 0 ? Math.floor(Number(query.offset)) : 0;
  const batches = useApi<BatchSummary[]>(accountPath('/batches'), { offset, limit: LIMIT });
  return (
    <Page title="Batches">
      <Loading loading={batches.loading} error={batches.error}>
        {batches.data && (
          <>
            <Table caption="Transactional batches, newest first" rows={batches.data} rowKey={(b) => b.id} empty="No transactional sends yet."
              columns={[
                { label: 'Batch', cell: (b) => <a href={to(`/batches/${encodeURIComponent(b.id)}`)}>{b.id}</a> },
                { label: 'Subject', cell: (b) => b.subject ?? '—' },
                { label: 'Created', cell: (b) => dateTime(b.created) },
                { label: 'Status', cell: (b) => <span class="badge">{b.status}</span> },
                { label: 'Recipients', numeric: true, cell: (b) => count(b.recipients) },
                { label: 'Sent', numeric: true, cell: (b) => count(b.sent) },
                { label: 'Delivered', numeric: true, cell: (b) => count(b.delivered) },
                { label: 'Bounced', numeric: true, cell: (b) => count(b.bounced) },
              ]} />
            <OffsetPager offset={offset} limit={LIMIT} total={batches.envelope?.paging?.total ?? 0}
              onOffset={(next) => setQuery({ offset: next ? String(next) : undefined })} />
          </>
        )}
      </Loading>
    </Page>
  );
}
