import type { CampaignSummary } from './types';

/** A campaign's state as a word (never a colour alone), "paused" beside it while a paused launch waits. */
export function StateBadge({ campaign }: { campaign: Pick<CampaignSummary, 'state' | 'paused' | 'archived'> }) {
  return (
    <span class="campaign-state">
      <span class={`badge state-${campaign.state.toLowerCase()}`}>{campaign.state.replace('_', ' ').toLowerCase()}</span>
      {campaign.paused && <span class="badge">paused</span>}
      {campaign.archived && <span class="badge">archived</span>}
    </span>
  );
}
