// The source's templates: folders first, then HTML and MJML templates in the folders they map to,
// each body read from `GET /{account}/templates/{id}.json` (its HTML, its MJML where the source
// has it, its send defaults), else `{id}.html`. A template's Herald number is recorded before it is
// created (its id is its folder's path and that number, so the number is what stays), so a run
// killed midway creates nothing twice; a re-run updates what changed. The original's drag-and-drop
// templates (EDDIE) have no Herald equivalent and are skipped with that reason.
import type { TemplateAddress, TemplateDoc } from '../../adapters/store/store';
import { AppError } from '../shared/errors';
import { createTemplate, templateNumber, updateTemplate, type TemplateInput } from '../content/templates';
import type { StepContext } from './definitions';
import { bringOver, digestOf } from './mapping';
import { count, emptyKind, skip, type KindReport } from './report';

interface SourceTemplate { id: string; type: string; name: string; location?: string }
interface SourceBody { html?: string; mjml?: string; subject?: string | null; from?: TemplateAddress | null; reply_to?: TemplateAddress | null }

export async function migrateTemplates(context: StepContext): Promise<KindReport> {
  const { store, account, client, map } = context;
  const report = emptyKind();
  const all: SourceTemplate[] = [];
  for await (const page of client.pages<SourceTemplate>('templates', { pageSize: 1000, sortby: 'created', query: { 'filter[type]': 'all' } })) all.push(...page.items);
  // Folders before what they hold.
  all.sort((a, b) => Number(b.type.toUpperCase() === 'FOLDER') - Number(a.type.toUpperCase() === 'FOLDER'));
  const mapped = await map.lookup('templates', all.map((template) => template.id));
  const folderIds = new Map<string, string>([['/', '/']]);
  for (const template of all) {
    report.read += 1;
    const type = template.type.toUpperCase();
    if (!['HTML', 'MJML', 'FOLDER'].includes(type)) {
      skip(report, `template type ${type.slice(0, 20)} has no Herald equivalent`);
      continue;
    }
    const location = folderIds.get(template.location ?? '/');
    if (location === undefined) {
      skip(report, 'its folder was not migrated');
      continue;
    }
    let input: TemplateInput = { name: template.name, type, location };
    if (type !== 'FOLDER') {
      const body = await bodyOf(context, template.id);
      input = body.mjml !== undefined
        ? { ...input, type: 'MJML', mjmlRaw: body.mjml }
        : { ...input, type: 'HTML', htmlRaw: body.html ?? '' };
      if (body.subject) input.subject = body.subject;
      if (body.from) input.from = body.from;
      if (body.reply_to) input.reply_to = body.reply_to;
    }
    try {
      // A template's number is what stays (its id is its folder's path and that number).
      count(report, await bringOver<TemplateDoc>(map, mapped, 'templates', template.id, digestOf(input), {
        reserveId: () => templateNumber(store, account),
        find: async (number) => {
          const existing = await store.templates.findOne({ _id: `${account}:${number}`, account });
          if (existing?.type === 'FOLDER') folderIds.set(template.id, existing.id);
          return existing;
        },
        create: async (number) => {
          const created = await createTemplate(store, account, input, number);
          if (created.type === 'FOLDER') folderIds.set(template.id, created.id);
        },
        update: async (existing) => { await updateTemplate(store, existing, updateOf(input, existing)); },
      }));
    } catch (error) {
      if (error instanceof AppError) skip(report, error.message); // Herald refused it (an MJML error, a body over 300 KB): said why
      else throw error;
    }
    await context.progress(report.read, all.length);
  }
  return report;
}

/** A template's body: `{id}.json` (Herald's: HTML, MJML, send defaults), else the `{id}.html` document. */
async function bodyOf(context: StepContext, id: string): Promise<SourceBody> {
  const path = `templates${id.startsWith('/') ? '' : '/'}${id.split('/').map(encodeURIComponent).join('/')}`;
  const json = await context.client.get<SourceBody>(`${path}.json`).catch(() => undefined);
  if (json?.data && (typeof json.data.html === 'string' || typeof json.data.mjml === 'string')) return json.data;
  return { html: (await context.client.download(`${path}.html`)).toString('utf8') };
}

/** The update that makes an existing template what the source has now. */
function updateOf(input: TemplateInput, existing: TemplateDoc) {
  return {
    name: input.name,
    ...(existing.type === 'FOLDER' ? {} : {
      location: input.location,
      ...(existing.type === 'MJML' ? { mjmlRaw: input.mjmlRaw } : { htmlRaw: input.htmlRaw }),
      subject: input.subject ?? null, from: input.from ?? null, reply_to: input.reply_to ?? null,
    }),
  };
}
