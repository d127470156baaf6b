// Render speed of a message's HTML on one core: a 20 KB HTML content with 10 substitutions and
// 20 links, compiled once and rendered per recipient (core/content/personalise.ts), with the
// tracking rewrite (open pixel, every link through a signed click link, utm parameters), beside
// the same content without tracking (the substitution language alone) and, as the reference, the
// same content as a plain Handlebars template with 10 `{{…}}` (the engine the dialect compiles
// to, with none of its defaults, built-ins, checks or tracking).
import { randomBytes } from 'node:crypto';
import Handlebars from 'handlebars';
import { compileTemplate } from '../core/content/dialect/dialect';
import { contentRenderer, type MessageIdentity } from '../core/content/personalise';
import type { SendRequestBody } from '../core/transactional/request';
import { perSecond, round } from './stats';
import { log } from './support';

const RENDERS = 100_000;
const CHUNK_CHARS = 2000;
const FILLER = '<p style="margin:0;color:#333">Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod.</p>\n';
// Two of the ten substitutions are in hrefs: those links differ per recipient (signed per message).
const EXPRESSIONS = [
  '${user.first_name}', '${user.last_name!"x"}', '<a href="https://shop.example/orders/${order.id}">Your order</a>', '${order.total?string("#,##0.00")}',
  '${order.date?string("dd/MM/yyyy")}', '<a href="https://shop.example/account?u=${user.email?url}">Account</a>', '${company.name?upper_case}',
  '${missing.step!"fallback"}', '${order.note?no_esc}', '${user.city}',
];
const LINKS = 20;

/**
 * Renders per second of `render` over RENDERS calls, after a warm-up of a tenth of them. With
 * `flatten`, each result is also read through (Buffer.byteLength), as encoding it into MIME will:
 * V8 builds a rendered string as a tree of pieces and pays for joining them only then.
 */
function rate(render: (i: number) => string, flatten = false): number {
  let bytes = 0;
  for (let i = 0; i < RENDERS / 10; i++) bytes += render(i).length;
  const started = performance.now();
  for (let i = 0; i < RENDERS; i++) bytes += flatten ? Buffer.byteLength(render(i)) : render(i).length;
  const ms = performance.now() - started;
  if (bytes === 0) throw new Error('nothing rendered');
  return perSecond(RENDERS, ms);
}

/** A 2 KB chunk of text with `links` constant links, ending in `tail`. */
function chunk(n: number, links: number, tail: string): string {
  let text = '';
  for (let i = 0; i < links; i++) text += `<p><a href="https://shop.example/products/${n}-${i}?ref=mail" style="color:#06c">Product ${n}-${i}</a></p>\n`;
  while (text.length < CHUNK_CHARS) text += FILLER;
  return text + tail;
}

export async function runRender(): Promise<Record<string, unknown>> {
  // LINKS links: the 2 in substitutions and the others spread over the 10 chunks (2, then 1 each).
  const constant = LINKS - 2;
  const body = (tails: string[]) => `<html><body>\n${tails.map((tail, n) => chunk(n, n < constant - tails.length ? 2 : 1, tail)).join('')}\n</body></html>`;
  const source = body(EXPRESSIONS);
  const models = Array.from({ length: 1000 }, (_, i) => ({
    user: { first_name: `Ada${i}`, last_name: 'Lovelace', email: `ada${i}@example.com`, city: 'London <UK>' },
    order: { id: `A-${i}`, total: 1234.5 + i, date: '2026-03-01T10:00:00Z', note: '<b>thanks</b>' },
    company: { name: 'Herald' },
  }));
  const links = (source.match(/<a /g) ?? []).length;
  log(`render: compiling ${source.length} characters with ${EXPRESSIONS.length} substitutions and ${links} links, then ${RENDERS} renders each`);

  const request: SendRequestBody = {
    from: { email: 'shop@example.com' },
    subject: 'Your order',
    content: { html: source },
    recipients: models.map((substitutions, i) => ({ to: { email: `ada${i}@example.com` }, substitutions })),
    tracking: { analytics: { utm_source: 'herald', utm_medium: 'email', utm_campaign: 'bench' } },
  };
  const identities: MessageIdentity[] = models.map((_, i) => ({
    account: 'bench', requestId: 'benchrequest0000000000001', index: i, mailId: `mail_${i}`, batchId: 'bench_transactional_benchrequest0000000000001', email: `ada${i}@example.com`,
  }));
  const renderTracked = contentRenderer(request, { publicUrl: 'https://herald.example', secret: randomBytes(32) });
  const sample = renderTracked(request.recipients[0], identities[0]).html!;
  const wrapped = (sample.match(/\/t\/c\//g) ?? []).length;
  if (wrapped !== links || !sample.includes('/t/o/')) throw new Error(`tracking rewrite incomplete: ${wrapped} of ${links} links wrapped`);
  const trackedRender = (i: number) => renderTracked(request.recipients[i % models.length], identities[i % models.length]).html!;
  const compiled = compileTemplate(source, { escape: 'html' });
  const untrackedRender = (i: number) => compiled.render(models[i % models.length]);

  const handlebarsSource = body(EXPRESSIONS.map((_, n) => `{{v${n}}}`));
  const handlebars = Handlebars.create().compile(handlebarsSource);
  const flat = models.map((m) => Object.fromEntries(EXPRESSIONS.map((_, n) => [`v${n}`, `${m.user.first_name}<${n}>`])));
  const plainRender = (i: number) => handlebars(flat[i % flat.length]);
  const [tracked, untracked, plain] = [trackedRender, untrackedRender, plainRender].map((render) => rate(render));
  const [trackedFlat, untrackedFlat, plainFlat] = [trackedRender, untrackedRender, plainRender].map((render) => rate(render, true));
  return {
    scenario: 'render',
    content_chars: source.length,
    substitutions: EXPRESSIONS.length,
    links,
    tracked_html_chars: sample.length,
    // Each output string read through once (joined), as building the MIME does anyway: V8 defers joining a rendered string's pieces.
    renders_per_s: trackedFlat,
    untracked_renders_per_s: untrackedFlat,
    reference_plain_handlebars_per_s: plainFlat,
    ratio_to_reference: round(trackedFlat / plainFlat, 2),
    goal_renders_per_s: 20_000,
    // The same three without the join (the renderer's own work only).
    unjoined: { renders_per_s: tracked, untracked_renders_per_s: untracked, reference_plain_handlebars_per_s: plain },
    notes: 'one core (this process); renders_per_s = a recipient\'s whole copy (subject + HTML) with tracking: open pixel, all links through signed click links '
      + '(2 of them per-recipient URLs, signed per message), 3 utm parameters; html escaping on; 1000 different recipients in turn',
  };
}
