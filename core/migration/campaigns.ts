// The source's campaigns, archived or not, as DRAFTs here: name, description, tags, options, the
// audience (lists, interests and earlier campaigns, mapped to Herald's ids; a reference to
// something not migrated is dropped and counted), and the content with its body (MJML where the
// source has it: `GET …/contents/{id}.mjml`, else `.html`). A campaign's Herald id is recorded
// before it is created; a re-run updates a draft whose source changed, and leaves alone one that
// was launched here since (said in the report).
import { nextId } from '../../adapters/store/counters';
import { SourceApiError } from '../../adapters/http/account-api-client';
import type { CampaignDoc } from '../../adapters/store/store';
import { AppError } from '../shared/errors';
import { createCampaign, findCampaign, updateCampaign, type CampaignInput } from '../campaigns/campaigns';
import { createContent, setHtmlBody, updateContent, type ContentInput } from '../campaigns/content-record';
import type { StepContext } from './definitions';
import { bringOver, digestOf } from './mapping';
import { count, emptyKind, skip, type KindReport } from './report';

interface Audience { lists?: number[]; interests?: number[]; campaigns?: number[] }
interface SourceContent { id: number; subject?: string; from?: string; fromName?: string; replyTo?: string; replyToName?: string; unsubscribeText?: string }
interface SourceCampaign {
  id: number; name: string; description?: string; tags?: string[]; options?: Record<string, string>;
  include?: Audience; exclude?: Audience; contents?: SourceContent[];
}

export async function migrateCampaigns(context: StepContext): Promise<KindReport> {
  const { store, account, client, map } = context;
  const report = emptyKind();
  const ids = new Set<number>();
  for (const archived of ['false', 'true']) {
    for await (const page of client.pages<{ id: number }>('campaigns', { pageSize: 1000, sortby: 'created', query: { 'filter[archived]': archived } })) {
      for (const campaign of page.items) ids.add(campaign.id);
    }
  }
  const ordered = [...ids].sort((a, b) => a - b); // earlier campaigns first: a later one may include their recipients
  const campaigns = await map.lookup('campaigns', ordered.map(String)); // kept current by bringOver, for the later ones' audiences
  const targetOf = (records: typeof campaigns, id: number) => records.get(String(id))?.targetId;
  for (const sourceId of ordered) {
    report.read += 1;
    const source = (await client.get<SourceCampaign>(`campaigns/${sourceId}`)).data;
    if (!source) {
      skip(report, 'gone from the source while reading');
      continue;
    }
    const referenced = (kind: 'lists' | 'interests') => [...(source.include?.[kind] ?? []), ...(source.exclude?.[kind] ?? [])].map(String);
    const [lists, interests] = await Promise.all([map.lookup('lists', referenced('lists')), map.lookup('interests', referenced('interests'))]);
    let dropped = 0;
    const audience = (given: Audience | undefined) => {
      const mapIds = (values: number[] | undefined, records: typeof lists) => (values ?? []).flatMap((id) => {
        const target = targetOf(records, id);
        if (typeof target === 'number') return [target];
        dropped += 1;
        return [];
      });
      return { lists: mapIds(given?.lists, lists), interests: mapIds(given?.interests, interests), campaigns: mapIds(given?.campaigns, campaigns) };
    };
    const input: CampaignInput & { name: string } = {
      name: source.name, description: source.description ?? '', tags: source.tags ?? [], options: source.options ?? {},
      include: audience(source.include), exclude: audience(source.exclude),
    };
    const content = source.contents?.[0];
    const contentInput: ContentInput | undefined = content && {
      subject: content.subject ?? '', from: content.from ?? '', fromName: content.fromName ?? '',
      replyTo: content.replyTo ?? '', replyToName: content.replyToName ?? '', ...(content.unsubscribeText ? { unsubscribeText: content.unsubscribeText } : {}),
    };
    const body = content ? await bodyOf(context, sourceId, content.id) : undefined;
    const withContent = async (id: number) => {
      if (contentInput) await writeContent(context, (await findCampaign(store, account, id))!, contentInput, body);
    };
    try {
      const outcome = await bringOver(map, campaigns, 'campaigns', String(sourceId), digestOf({ input, contentInput, body }), {
        reserveId: () => nextId(store, account, 'campaigns'),
        find: (id) => findCampaign(store, account, id),
        create: async (id) => {
          await createCampaign(store, account, input, id);
          await withContent(id);
        },
        update: async (campaign, id) => {
          if (campaign.state !== 'DRAFT') return 'launched here since it was migrated: left as it is';
          await updateCampaign(store, campaign, input);
          await withContent(id);
          return undefined;
        },
      });
      count(report, outcome);
      if (dropped > 0 && (outcome === 'created' || outcome === 'updated')) skip(report, 'audience references to lists, interests or campaigns not migrated (dropped)', dropped);
    } catch (error) {
      if (error instanceof AppError) skip(report, error.message); // Herald refused it (an MJML error, an invalid sender): said why
      else throw error;
    }
    await context.progress(report.read, ordered.length);
  }
  return report;
}

/** The content's body: its MJML where the source keeps it, else its HTML; undefined when it has none. */
async function bodyOf(context: StepContext, campaignId: number, contentId: number): Promise<string | undefined> {
  const path = `campaigns/${campaignId}/contents/${contentId}`;
  for (const ext of ['mjml', 'html']) {
    try {
      return (await context.client.download(`${path}.${ext}`)).toString('utf8');
    } catch (error) {
      if (!(error instanceof SourceApiError && error.failure === 'not_found')) throw error;
    }
  }
  return undefined;
}

async function writeContent(context: StepContext, campaign: CampaignDoc, input: ContentInput, body: string | undefined): Promise<void> {
  const { store } = context;
  const content = campaign.content
    ? { ...campaign.content, ...(await updateContent(store, campaign, campaign.content, input)) }
    : await createContent(store, campaign, input as Required<Pick<ContentInput, 'subject' | 'from' | 'fromName'>>);
  await setHtmlBody(store, campaign, content, body ?? '');
}
