// The campaign-send scenario's message on one core, without the stack: its size and the plan's
// per-recipient cost (`plan.message(row).raw()`: the copy rendered with its tracking links and
// spliced into the MIME), for the same campaign document (its ~15 KB HTML, 60 links, every option
// on) that scenario launches, planned by core/campaigns/plan.ts as a page plans it.
import { randomBytes } from 'node:crypto';
import type { CampaignDoc } from '../adapters/store/store';
import { DEFAULT_UNSUBSCRIBE_TEXT } from '../core/campaigns/model';
import { defaultOptions } from '../core/campaigns/options';
import { planCampaign } from '../core/campaigns/plan';
import { CAMPAIGN_CONTENT, campaignHtml, MTA_HOST, PUBLIC_URL, snapshotRow } from './campaign-send';
import { percentile, round } from './stats';
import { log } from './support';

const ROWS = 2_000;
const RUNS = 7;

/** The campaign-send scenario's campaign as the store holds it once launched (id 2: the one after its warm-up). */
export function benchCampaign(): CampaignDoc {
  const now = new Date();
  const name = 'Weekly offers';
  return {
    _id: 'benchcampaign:2', account: 'benchcampaign', id: 2, name, description: '', tags: [], type: 'SIMPLE', state: 'SENDING',
    launchMode: 'NOW', launchDate: null, created: now, lastModified: now, archived: null, thumbnail: null, options: defaultOptions(name),
    include: { lists: [2], interests: [], campaigns: [] }, exclude: { lists: [], interests: [], campaigns: [] }, recipients: null,
    content: {
      id: 1, type: 'HTML', ...CAMPAIGN_CONTENT, replyTo: '', replyToName: '', unsubscribeText: DEFAULT_UNSUBSCRIBE_TEXT,
      html: campaignHtml(), text: null, created: now, lastModified: now,
    },
  };
}

/** The bench campaign's plan without a store: its link table is saved once per plan, before any message, so it is no message's cost. */
export function benchPlan(campaign: CampaignDoc = benchCampaign()) {
  return planCampaign(campaign, [], { mtaHost: MTA_HOST, links: { publicUrl: PUBLIC_URL, secret: randomBytes(32) }, linkTables: { save: async () => undefined } });
}

export async function runCampaignMessage(): Promise<Record<string, unknown>> {
  const plan = await benchPlan();
  const rows = Array.from({ length: ROWS }, (_, seq) => snapshotRow(seq));
  let bytes = 0;
  const runMs: number[] = [];
  const cpuMs: number[] = [];
  // The first run warms up (compilation, JIT); the figures are the medians of the others. CPU
  // time (the process's, GC threads included) moves less than wall time on a shared machine.
  for (let run = 0; run <= RUNS; run += 1) {
    bytes = 0;
    const started = performance.now();
    const cpu = process.cpuUsage();
    for (const row of rows) bytes += plan.message(row).raw().length;
    const used = process.cpuUsage(cpu);
    if (run > 0) {
      runMs.push(performance.now() - started);
      cpuMs.push((used.user + used.system) / 1000);
    }
  }
  const sample = plan.message(rows[0]).raw().toString();
  const clicks = sample.match(/\/t\/c\/[A-Za-z0-9_.-]+/g) ?? [];
  const medianMs = percentile(runMs, 50);
  const medianCpuMs = percentile(cpuMs, 50);
  log(`campaign-message: ${ROWS} messages, ${round(bytes / ROWS / 1024, 2)} KB each, ${round((medianMs * 1000) / ROWS)} µs each (${round((medianCpuMs * 1000) / ROWS)} µs of CPU)`);
  return {
    scenario: 'campaign-message',
    messages: ROWS,
    message_bytes: Math.round(bytes / ROWS),
    message_kb: round(bytes / ROWS / 1024, 2),
    click_links: clicks.length,
    click_link_chars: clicks.length > 0 ? Math.round(clicks.reduce((sum, c) => sum + c.length, 0) / clicks.length) + PUBLIC_URL.length : 0,
    render_us_per_message: round((medianMs * 1000) / ROWS),
    render_ms_per_2000: round(medianMs),
    render_cpu_us_per_message: round((medianCpuMs * 1000) / ROWS),
    notes: `campaign-send's campaign (~15 KB HTML, 60 links, every option on) planned once, then plan.message(row).raw() for ${ROWS} snapshot rows, ` +
      `one core; render figures: the median of ${RUNS} runs after a warm-up run (wall time, and the process's CPU time)`,
  };
}
