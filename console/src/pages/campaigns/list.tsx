// The campaigns of the account: state and figures, filtered by state and archive, paged by offset.
import { useState } from 'preact/hooks';
import { useLocation } from 'preact-iso';
import { accountPath } from '../../api';
import { useApi } from '../../hooks';
import { count, dateTime, percent } from '../../format';
import { to } from '../../routes';
import { can } from '../../session';
import { Page, Loading } from '../../components/page';
import { Checkbox, SelectField } from '../../components/forms';
import { OffsetPager, Table } from '../../components/table';
import { StateBadge } from './state-badge';
import { CAMPAIGN_STATES, campaignPath, type CampaignSummary } from './types';

const LIMIT = 20;

export function CampaignList() {
  const { query, route } = useLocation();
  const offset = Number(query.offset ?? 0) || 0;
  const state = query.state ?? '';
  const archived = query.archived === 'true';
  // The filters live in the address, so a page of results can be linked and reloaded.
  const go = (next: { state?: string; archived?: boolean; offset?: number }) => {
    const params = new URLSearchParams();
    const s = next.state ?? state;
    const a = next.archived ?? archived;
    if (s) params.set('state', s);
    if (a) params.set('archived', 'true');
    if (next.offset) params.set('offset', String(next.offset));
    const text = params.toString();
    route(`${to('/campaigns')}${text ? `?${text}` : ''}`);
  };
  const { data, envelope, error, loading } = useApi<CampaignSummary[]>(accountPath('/campaigns'), {
    offset, limit: LIMIT, sortby: 'created', sortdir: 'desc', 'filter[state]': state || undefined, 'filter[archived]': archived ? 'true' : undefined,
  });
  const [creatable] = useState(() => can('campaigns:create'));
  return (
    <Page title="Campaigns" actions={creatable
      ? <a class="button primary" href={to('/campaigns/new')}>New campaign</a>
      : <button type="button" class="primary" disabled title="You lack the campaigns:create permission">New campaign</button>}>
      <div class="filters">
        <SelectField label="State" value={state} onChange={(value) => go({ state: value, offset: 0 })}
          options={[{ value: '', label: 'Any state' }, ...CAMPAIGN_STATES.map((s) => ({ value: s, label: s.replace('_', ' ').toLowerCase() }))]} />
        <Checkbox label="Archived campaigns" checked={archived} onChange={(value) => go({ archived: value, offset: 0 })} />
      </div>
      <Loading loading={loading} error={error}>
        {data && (
          <>
            <Table<CampaignSummary> caption="Campaigns" rows={data} rowKey={(c) => c.id}
              empty={state || archived ? 'No campaign matches these filters.' : 'No campaign yet.'}
              columns={[
                { label: 'Name', cell: (c) => <a href={to(campaignPath(c.id))}>{c.name}</a> },
                { label: 'State', cell: (c) => <StateBadge campaign={c} /> },
                { label: 'Launch', cell: (c) => (c.launchDate ? dateTime(c.launchDate) : c.launchMode === 'NOW' ? 'now' : '—') },
                { label: 'Recipients', numeric: true, cell: (c) => count(c.recipients) },
                { label: 'Sent', numeric: true, cell: (c) => count(c.metrics?.sent) },
                { label: 'Opened', numeric: true, cell: (c) => (c.metrics ? percent(c.metrics.openedP / 100) : '—') },
                { label: 'Clicked', numeric: true, cell: (c) => (c.metrics ? percent(c.metrics.clickedP / 100) : '—') },
                { label: 'Bounced', numeric: true, cell: (c) => (c.metrics ? percent(c.metrics.bouncedP / 100) : '—') },
                { label: 'Report', cell: (c) => <a href={to(campaignPath(c.id, '/report'))} aria-label={`Report of ${c.name}`}>Report</a> },
              ]} />
            {envelope?.paging && (
              <OffsetPager offset={offset} limit={LIMIT} total={envelope.paging.total} onOffset={(next) => go({ offset: next })} />
            )}
          </>
        )}
      </Loading>
    </Page>
  );
}
