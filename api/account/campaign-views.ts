// How campaigns and their content look in answers. The list shows a reduced campaign (no
// options, audiences or contents); the detail, create and duplicate show everything. Dates are
// ISO 8601 UTC. Include/exclude campaigns are bare ids when the action is SENT (the spec's
// shape) and `{id, action}` objects otherwise (the original's), which is how clients send them.
import type { CampaignChanges } from '../../core/campaigns/campaigns';
import type { ContentChanges } from '../../core/campaigns/content-record';
import type { CampaignMetrics } from '../../core/campaigns/metrics';
import { LAUNCHED_STATES } from '../../core/campaigns/model';
import { optionsView } from '../../core/campaigns/options';
import type { CampaignAudience, CampaignContentDoc, CampaignDoc } from '../../adapters/store/store';

const iso = (date: Date | null) => (date ? date.toISOString() : null);

/** The content record, without its bodies (GET/PUT …/contents/{id}.html and .txt carry them). */
export function contentView(content: CampaignContentDoc) {
  return {
    id: content.id, type: content.type, subject: content.subject, from: content.from, fromName: content.fromName,
    replyTo: content.replyTo, replyToName: content.replyToName, unsubscribeText: content.unsubscribeText, thumbnail: null,
  };
}

function audienceView(audience: CampaignAudience) {
  return {
    lists: audience.lists,
    interests: audience.interests,
    campaigns: audience.campaigns.map((member) => (member.action === 'SENT' ? member.id : { id: member.id, action: member.action })),
  };
}

/** The list's campaign. `paused` only while a launch is under way (SCHEDULED, PENDING_APPROVAL, SENDING). */
export function campaignSummary(campaign: CampaignDoc, metrics: CampaignMetrics | null) {
  return {
    id: campaign.id, name: campaign.name, description: campaign.description, tags: campaign.tags, type: campaign.type, state: campaign.state,
    ...(LAUNCHED_STATES.includes(campaign.state) ? { paused: campaign.launch?.paused ?? false } : {}),
    recipients: campaign.recipients, launchMode: campaign.launchMode, launchDate: iso(campaign.launchDate),
    created: iso(campaign.created), lastModified: iso(campaign.lastModified), archived: iso(campaign.archived), thumbnail: campaign.thumbnail,
    metrics,
  };
}

/** The whole campaign: the summary with its options (both key sets), include, exclude and contents. */
export function campaignDetail(campaign: CampaignDoc, metrics: CampaignMetrics | null) {
  return {
    ...campaignSummary(campaign, metrics),
    options: optionsView(campaign.options),
    include: audienceView(campaign.include),
    exclude: audienceView(campaign.exclude),
    contents: campaign.content ? [contentView(campaign.content)] : [],
  };
}

/** A PUT's answer: the id and what changed, each as the detail shows it. */
export function campaignChangesView(id: number, changes: CampaignChanges) {
  const { launchDate, options, include, exclude, ...rest } = changes;
  return {
    id, ...rest,
    ...(launchDate !== undefined ? { launchDate: iso(launchDate) } : {}),
    ...(options ? { options: optionsView(options) } : {}),
    ...(include ? { include: audienceView(include) } : {}),
    ...(exclude ? { exclude: audienceView(exclude) } : {}),
  };
}

export function contentChangesView(id: number, changes: ContentChanges) {
  return { id, ...changes };
}
