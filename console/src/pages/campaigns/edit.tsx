// A new campaign, and a campaign's own page: where it stands, what can be done to it, its
// validation and its settings (editable while a DRAFT, by a user with campaigns:update).
import { useEffect, useState } from 'preact/hooks';
import { useLocation } from 'preact-iso';
import { accountPath } from '../../api';
import { useApi } from '../../hooks';
import { count, dateTime } from '../../format';
import { to } from '../../routes';
import { can } from '../../session';
import { Details, Loading, Page, Section } from '../../components/page';
import { CampaignActions } from './actions';
import { CampaignForm } from './campaign-form';
import { StateBadge } from './state-badge';
import { ValidationPanel } from './validation';
import { campaignPath, isSending, LAUNCHED, type Campaign } from './types';

export function NewCampaign() {
  const { route } = useLocation();
  const why = can('campaigns:create') ? undefined : 'You lack the campaigns:create permission: you cannot create campaigns.';
  return (
    <Page title="New campaign">
      <Section title="Settings">
        <CampaignForm locked={why} onSaved={(id) => route(to(campaignPath(id)))} />
      </Section>
    </Page>
  );
}

export function CampaignPage({ id }: { id: string }) {
  const { route } = useLocation();
  // While a launch is under way its state and counts move: read again every few seconds; a launch
  // due later, now and then, so the page sees it begin.
  const [refreshMs, setRefreshMs] = useState(0);
  const { data: campaign, error, loading, reload } = useApi<Campaign>(accountPath(`/campaigns/${encodeURIComponent(id)}`), {}, refreshMs);
  useEffect(() => {
    setRefreshMs(!campaign ? 0 : isSending(campaign) ? 2000 : LAUNCHED.includes(campaign.state) ? 30000 : 0);
  }, [campaign]);
  const locked = !campaign ? undefined
    : campaign.state !== 'DRAFT' ? `A ${campaign.state.toLowerCase()} campaign cannot change: duplicate it to send a changed copy.`
      : !can('campaigns:update') ? 'You lack the campaigns:update permission: you can read this campaign but not change it.' : undefined;
  return (
    <Page title={campaign ? campaign.name : 'Campaign'} actions={campaign && (
      <>
        <a href={to(campaignPath(campaign.id, '/content'))}>Content</a>
        <a href={to(campaignPath(campaign.id, '/report'))}>Report</a>
      </>
    )}>
      <Loading loading={loading} error={error}>
        {campaign && (
          <>
            <Section title="Status">
              <Details items={[
                ['State', <StateBadge campaign={campaign} />],
                ['Recipients', count(campaign.recipients)],
                ['Sent', count(campaign.metrics?.sent)],
                ['Launch', campaign.launchDate ? dateTime(campaign.launchDate) : campaign.launchMode === 'NOW' ? 'as soon as launched' : '—'],
                ['Created', dateTime(campaign.created)],
                ['Changed', dateTime(campaign.lastModified)],
              ]} />
              <CampaignActions campaign={campaign} onChanged={reload}
                onDuplicated={(copy) => route(to(campaignPath(copy)))} onDeleted={() => route(to('/campaigns'))} />
            </Section>
            {campaign.state === 'DRAFT' && (
              <Section title="Validation">
                <ValidationPanel id={campaign.id} />
              </Section>
            )}
            <Section title="Settings">
              <CampaignForm key={`${campaign.id}:${campaign.state}`} campaign={campaign} locked={locked} onSaved={reload} />
            </Section>
          </>
        )}
      </Loading>
    </Page>
  );
}
