// The substitution language's render speed (core/transactional/dialect.ts), on one core: a 20 KB
// HTML content with 10 substitutions, compiled once and rendered per recipient, beside the same
// content as a plain Handlebars template with 10 `{{…}}` (the engine the dialect compiles to, with
// none of its defaults, built-ins or checks) as the reference. The issue's
// goal counts tracking too; the tracking rewrite is not built yet, so this is substitution alone.
import Handlebars from 'handlebars';
import { compileTemplate } from '../core/transactional/dialect';
import { perSecond, round } from './stats';
import { log } from './support';

const RENDERS = 100_000;
const FILLER = '<p style="margin:0;color:#333">Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod.</p>\n';
const EXPRESSIONS = [
  '${user.first_name}', '${user.last_name!"x"}', '${order.id}', '${order.total?string("#,##0.00")}', '${order.date?string("dd/MM/yyyy")}',
  '${user.email?url}', '${company.name?upper_case}', '${missing.step!"fallback"}', '${order.note?no_esc}', '${user.city}',
];

/** Renders per second of `render` over RENDERS calls, after a warm-up of a tenth of them. */
function rate(render: (i: number) => string): number {
  let bytes = 0;
  for (let i = 0; i < RENDERS / 10; i++) bytes += render(i).length;
  const started = performance.now();
  for (let i = 0; i < RENDERS; i++) bytes += render(i).length;
  const ms = performance.now() - started;
  if (bytes === 0) throw new Error('nothing rendered');
  return perSecond(RENDERS, ms);
}

export async function runRender(): Promise<Record<string, unknown>> {
  const source = EXPRESSIONS.map((expression) => FILLER.repeat(Math.ceil(2000 / FILLER.length)) + expression).join('');
  const models = Array.from({ length: 1000 }, (_, i) => ({
    user: { first_name: `Ada${i}`, last_name: 'Lovelace', email: `ada${i}@example.com`, city: 'London <UK>' },
    order: { id: `A-${i}`, total: 1234.5 + i, date: '2026-03-01T10:00:00Z', note: '<b>thanks</b>' },
    company: { name: 'Herald' },
  }));
  log(`render: compiling ${source.length} characters with ${EXPRESSIONS.length} substitutions, then ${RENDERS} renders`);
  const compiled = compileTemplate(source, { escape: 'html' });
  const renders = rate((i) => compiled.render(models[i % models.length]));
  const handlebarsSource = EXPRESSIONS.map((_, n) => `${FILLER.repeat(Math.ceil(2000 / FILLER.length))}{{v${n}}}`).join('');
  const handlebars = Handlebars.create().compile(handlebarsSource);
  const flat = models.map((m) => Object.fromEntries(EXPRESSIONS.map((_, n) => [`v${n}`, `${m.user.first_name}<${n}>`])));
  const plain = rate((i) => handlebars(flat[i % flat.length]));
  return {
    scenario: 'render',
    content_chars: source.length,
    substitutions: EXPRESSIONS.length,
    renders_per_s: renders,
    reference_plain_handlebars_per_s: plain,
    ratio_to_reference: round(renders / plain, 2),
    goal_renders_per_s: 20_000,
    notes: 'one core (this process); html escaping on; 1000 different recipient models in turn; the tracking rewrite (the issue counts it in the goal) is not built yet',
  };
}
