// `npm run bench [-- <scenario>...]`: runs the scenarios in order and prints one JSON object
// per scenario on stdout; progress goes to stderr. Exit code 1 if a scenario failed.
import { quietTemporalRuntime } from '../adapters/temporal/runtime';
import { runApiUnderLoad } from './api-under-load';
import { runCampaignMessage } from './campaign-message';
import { runCampaignResend } from './campaign-resend';
import { runMigrateBench } from './migrate';
import { runCampaignSend } from './campaign-send';
import { runConsoleContacts } from './console-contacts';
import { runConsoleReports } from './console-reports';
import { runContactsApi } from './contacts-api';
import { runContactsImport } from './contacts-import';
import { runHeraldSend } from './herald-send';
import { runNodemailerRaw } from './nodemailer-raw';
import { runRelayPath } from './relay-path';
import { runRelays } from './relays';
import { runRender } from './render';
import { runSmtpAuth } from './smtp-auth';
import { runSmtpSend } from './smtp-send';
import { runStoreDiskFull } from './store-disk-full';
import { runStoreRates } from './store-rates';
import { log, runAllTeardowns } from './support';
import { runTemporalBare } from './temporal-bare';
import { runTrackingHits } from './tracking-hits';
import { runTransactionalLatency } from './transactional-latency';
import { runTriggerEvents } from './trigger-events';
import { runWebhookDelivery } from './webhook-delivery';

type Results = Record<string, Record<string, unknown>>;

const SCENARIOS: Record<string, (done: Results) => Promise<Record<string, unknown>>> = {
  'temporal-bare': () => runTemporalBare(),
  'nodemailer-raw': () => runNodemailerRaw(),
  // herald-send compares itself with temporal-bare's figure when this run measured it.
  'herald-send': () => runHeraldSend(),
  // SMTP submissions from 20 clients through the same gathering path, beside signalWithStart.
  'smtp-send': () => runSmtpSend(),
  // How fast the SMTP listener answers AUTH (right key, first failures, a held failure), beside a store ping.
  'smtp-auth': () => runSmtpAuth(),
  // The store alone: memory vs durable file, and nested vs JSON-string request bodies.
  'store-rates': () => runStoreRates(),
  // The account API: contact upserts over HTTP beside the store's own upserts, pages of 100k contacts.
  'contacts-api': () => runContactsApi(),
  // The console's contacts page with 100k contacts: the API call it makes for its first page, and its rows on screen in Chromium.
  'console-contacts': () => runConsoleContacts(),
  // The console's overview and campaign report: GET /stats/daily over 100k events, a 100k-recipient campaign's …/report and …/metrics.
  'console-reports': () => runConsoleReports(),
  // A 100k-row contacts import end to end over HTTP, beside the store's own bulk insert rate.
  'contacts-import': () => runContactsImport(),
  // The substitution language: renders/s of a 20 KB HTML with 10 substitutions, on one core.
  render: () => runRender(),
  // Tracking hits/s (open pixels and clicks, each answered once stored), beside the store's batched insert rate.
  'tracking-hits': () => runTrackingHits(),
  // Webhook events/s delivered from a stored backlog to a local receiver (250 requests/s cap held), beside the store's read rate; compared with tracking-hits when it ran.
  'webhook-delivery': (done) => runWebhookDelivery(done['tracking-hits']?.hits_per_s as number | undefined),
  // The relay path alone: a campaign's ~34 KB messages sent by pooled nodemailer as the relay transport was, beside Herald's relay transport (CPU per message).
  'relay-path': () => runRelayPath(),
  // A 100k-contact campaign launched end to end (worker in its own process) to a counting sink, beside prebuilt raw MIME of its own messages sent by nodemailer.
  'campaign-send': () => runCampaignSend(),
  // A SENT 100k-contact campaign's resend rounds 1-3, nothing failed and 1% failed, beside its launch; the API's p99 meanwhile.
  'campaign-resend': () => runCampaignResend(),
  // Single sends at half the sustained rate, 202 to the relay, idle then while a 100k-contact campaign sends through the same worker, beside the campaign's rate alone.
  'transactional-latency': () => runTransactionalLatency(),
  // campaign-send's message alone, on one core: its size and the plan's per-recipient render (no stack).
  'campaign-message': () => runCampaignMessage(),
  // Several relays (issue 36): routing's cost (three relays against one), failover when the preferred relay dies mid-campaign, a rate limit held across two worker processes.
  relays: () => runRelays(),
  // herald migrate Herald to Herald (issue 38): 100k contacts with lists, an interest, field values and suppressions, then a re-run, beside a CSV import of the same contacts.
  migrate: () => runMigrateBench(),
  // Custom trigger events posted by 50 clients (hourly limit raised), each running a one-email automation, beside bare signalWithStart and no-op workflows.
  'trigger-events': () => runTriggerEvents(),
  // Light API calls alone, then while a dozen exports, an import and a 100k-contact campaign keep the store busy (issue 39): p99 and 503s.
  'api-under-load': () => runApiUnderLoad(),
  // The store on its own tmpfs filled for a minute under 12 writers, restarted whenever it exits (as root): every acknowledged insert still there.
  'store-disk-full': () => runStoreDiskFull(),
};

/** NaN is not JSON: print it as null rather than let JSON.stringify hide the difference. */
const toJson = (value: Record<string, unknown>) => JSON.stringify(value, (_k, v) => (typeof v === 'number' && !Number.isFinite(v) ? null : v));

async function main(): Promise<number> {
  const args = process.argv.slice(2);
  if (args.includes('--help') || args.includes('-h')) {
    process.stderr.write(`usage: npm run bench [-- <scenario>...]\nscenarios: ${Object.keys(SCENARIOS).join(', ')}\n`);
    return 0;
  }
  const unknown = args.filter((a) => !(a in SCENARIOS));
  if (unknown.length > 0) {
    process.stderr.write(`unknown scenario(s): ${unknown.join(', ')}; known: ${Object.keys(SCENARIOS).join(', ')}\n`);
    return 2;
  }
  const chosen = Object.keys(SCENARIOS).filter((name) => args.length === 0 || args.includes(name));
  quietTemporalRuntime(); // once per process, before any worker connection
  const done: Results = {};
  let failed = false;
  for (const name of chosen) {
    log(`scenario ${name}`);
    try {
      done[name] = await SCENARIOS[name](done);
      process.stdout.write(`${toJson(done[name])}\n`);
    } catch (error) {
      failed = true;
      log(`${name} failed: ${(error as Error).stack ?? error}`);
      process.stdout.write(`${toJson({ scenario: name, error: (error as Error).message })}\n`);
    }
  }
  return failed ? 1 : 0;
}

// Ctrl-C: stop the servers and remove the temp dirs before leaving.
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    log(`${signal}: stopping`);
    void runAllTeardowns().finally(() => process.exit(130));
  });
}

main().then(
  // Exit explicitly: a lingering handle (a gRPC channel, an abandoned task) must not keep a finished run alive.
  (code) => process.exit(code),
  (error) => { log(String(error)); process.exit(1); },
);
