// The latest campaigns and transactional batches, a few rows each, linking to their pages.
import { accountPath } from '../../api';
import { useApi } from '../../hooks';
import { Loading, Section } from '../../components/page';
import { Table } from '../../components/table';
import { ago, count } from '../../format';
import { to } from '../../routes';
import type { BatchSummary } from '../transactional/types';

interface CampaignSummary { id: number; name: string; state: string; created: string; recipients?: number | null }

const FEW = 5;

export function LatestCampaigns() {
  const campaigns = useApi<CampaignSummary[]>(accountPath('/campaigns'), { sortby: 'created', sortdir: 'desc', limit: FEW });
  return (
    <Section title="Latest campaigns" actions={<a href={to('/campaigns')}>All campaigns</a>}>
      <Loading loading={campaigns.loading} error={campaigns.error}>
        {campaigns.data && (
          <Table caption="Latest campaigns" rows={campaigns.data} rowKey={(c) => c.id} empty="No campaigns yet."
            columns={[
              { label: 'Campaign', cell: (c) => <a href={to(`/campaigns/${c.id}`)}>{c.name || `Campaign ${c.id}`}</a> },
              { label: 'State', cell: (c) => <span class="badge">{c.state}</span> },
              { label: 'Created', cell: (c) => ago(c.created) },
            ]} />
        )}
      </Loading>
    </Section>
  );
}

export function LatestBatches() {
  const batches = useApi<BatchSummary[]>(accountPath('/batches'), { limit: FEW });
  return (
    <Section title="Latest transactional batches" actions={<a href={to('/batches')}>All batches</a>}>
      <Loading loading={batches.loading} error={batches.error}>
        {batches.data && (
          <Table caption="Latest transactional batches" rows={batches.data} rowKey={(b) => b.id} empty="No transactional sends yet."
            columns={[
              { label: 'Batch', cell: (b) => <a href={to(`/batches/${encodeURIComponent(b.id)}`)}>{b.subject || b.id}</a> },
              { label: 'Status', cell: (b) => <span class="badge">{b.status}</span> },
              { label: 'Recipients', numeric: true, cell: (b) => count(b.recipients) },
              { label: 'Created', cell: (b) => ago(b.created) },
            ]} />
        )}
      </Loading>
    </Section>
  );
}
