// `npm run soak -- [--minutes N] [--kill-every M] [--seed S]`: Herald under mixed load for N
// minutes while its processes are SIGKILLed at random and its disk fills up once, then the checks
// of bench/soak/checks.ts. Progress on stderr, a table, and the JSON verdict as stdout's last line;
// exit code 1 on any loss. Loopback only; everything lives in a folder of its own, removed at the end.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { MongoClient } from 'mongodb';
import { connectStore, type Store } from '../adapters/store/store';
import { SEND_CONCURRENCY } from '../core/sending/message-loop';
import { DRAIN_TUNING } from '../core/transactional/drain';
import { loadConfig } from '../composition/config';
import { Answers, callRecorded } from './soak/answers';
import { importContacts, interfere, launchCampaign, persist, campaignState, type CampaignPlan, type SoakCampaign, TRACKED_CONTACT_PREFIX } from './soak/campaign-load';
import { checkContacts, checkMail, checkTracking, missingWebhookEvents, type Fault } from './soak/checks';
import { contactEdits, contactImports, newContactsRecord } from './soak/contacts-load';
import { accountUrl, bearer, heraldCli, SOAK_DOMAIN, type SoakContext } from './soak/context';
import { soakDisk } from './soak/disk';
import { planFaults, processesOf } from './soak/faults';
import { Fleet, sleep } from './soak/fleet';
import { copyKey, startSoakSink } from './soak/mail-sink';
import { parseSoakOptions, streamOf, UsageError, type SoakOptions } from './soak/options';
import { failuresOf, printTable, type SoakReport } from './soak/report';
import { bigRequests, httpSends, smtpSends, SUPPRESSED, suppressedAddress, TRACKED_HTTP_PREFIX } from './soak/transactional-load';
import { newTrackingRecord, trackingHits } from './soak/tracking-load';
import { checkRetention, createRetainedAccount, pruneEveryMinute, RETAINED_MS, retainedSends, retainedSubject } from './soak/retention-load';
import { MIN_RETENTION_DAYS } from '../core/retention/policy';
import { startWebhookReceiver } from './soak/webhook-receiver';
import { log } from './support';

const CONTACTS = 20_000;
const HTTP_SENDS_PER_S = 5;
const SMTP_SENDS_PER_S = 1;
/** The share of webhook requests the receiver answers 500. */
const WEBHOOK_FAIL_SHARE = 0.05;
/** The data folder's tmpfs: room for a 30-minute run, all of it taken by the disk episode. */
const DISK_MB = 8192;
const DRAIN_MS = 5 * 60_000;
/**
 * The data folder may grow this much per minute of load at most: the main account keeps all its
 * history (45 days), which the checks read; about 6.5 MB a minute measured (30 minutes: 12 -> 196 MB).
 */
const DISK_MB_PER_MINUTE_BOUND = 12;
/**
 * A process's resident memory at the end may be at most this much: the store's JVM grows into
 * its 1 GB heap (-Xmx1g, infra/store.ts) as it should, so its bound is the heap and 512 MB
 * beside it; the others, half again their size after the setup and 150 MB.
 */
const MEMORY_BOUND: (name: string, startMb: number) => number = (name, startMb) => (name === 'store' ? 1024 + 512 : Math.round(startMb * 1.5 + 150));
const FINAL_STATES = ['SENT', 'CANCELLED'];

async function soak(options: SoakOptions): Promise<SoakReport> {
  const runMs = options.minutes * 60_000;
  const plan = planFaults(options.minutes, options.killEveryMinutes, streamOf(options.seed, 'faults'));
  log(`soak: seed ${options.seed}, ${options.minutes} min, a kill every ${options.killEveryMinutes} min: ${plan.kills.map((k) => `${k.target}@${Math.round(k.atMs / 1000)}s`).join(', ')}; disk full at ${Math.round(plan.disk.atMs / 1000)} s for ${plan.disk.durationMs / 1000} s`);
  const keep = (to: string) => to.startsWith(TRACKED_HTTP_PREFIX) || to.startsWith(TRACKED_CONTACT_PREFIX);
  const sink = await startSoakSink(keep);
  const receiver = await startWebhookReceiver(streamOf(options.seed, 'webhook'), WEBHOOK_FAIL_SHARE);
  const disk = soakDisk(path.join(os.tmpdir(), `herald-soak-${process.pid}`), DISK_MB);
  // Ctrl-C: the processes end with this one (infra/child.ts); the tmpfs must not stay mounted.
  const interrupted = () => { disk.remove(); process.exit(130); };
  process.once('SIGINT', interrupted).once('SIGTERM', interrupted);
  let reportOk = false;
  let fleet: Fleet | undefined;
  let mongo: MongoClient | undefined;
  let pruner: Store | undefined;
  try {
    log(`soak: starting Herald on ${disk.dir}${disk.unavailable ? ` (${disk.unavailable})` : ' (a tmpfs)'}`);
    fleet = await Fleet.start(disk.dir, sink.url);
    const { env } = fleet.addresses;
    const created = JSON.parse(heraldCli(env, 'account', 'create', 'soak')) as { account: string; apiKey: string; transactionalKey: string };
    const answers = new Answers();
    let running = false;
    const ctx: SoakContext = { apiUrl: fleet.addresses.apiUrl, smtpPort: fleet.addresses.smtpPort, ...created, answers, accepted: [], running: () => running };
    mongo = await MongoClient.connect(fleet.addresses.mongodbUri);
    const db = mongo.db(loadConfig(env).mongodbDatabase);
    const retained = createRetainedAccount(env);
    pruner = await connectStore(fleet.addresses.mongodbUri, loadConfig(env).mongodbDatabase);

    log(`soak: setting up: ${SUPPRESSED} suppressed addresses, a webhook endpoint, ${CONTACTS.toLocaleString('en-US')} contacts imported`);
    for (let i = 0; i < SUPPRESSED; i += 1) await persist(ctx, 'setup', '/suppressions', { json: { email: suppressedAddress(i) } });
    const webhookSince = new Date();
    const hook = await persist(ctx, 'setup', '/webhooks', { json: { url: receiver.url } });
    receiver.setSecret((JSON.parse(hook.text) as { data: { secret: string } }).data.secret);
    const listId = await importContacts(ctx, CONTACTS);
    const memoryStart = fleet.memoryMb();
    const diskStart = disk.usedBytes();

    log('soak: load and faults begin');
    const startedAt = Date.now();
    running = true;
    const stopAt = startedAt + runMs;
    const tracking = newTrackingRecord();
    const contacts = newContactsRecord();
    const campaigns: SoakCampaign[] = [];
    const campaignStates = new Map<number, string>();
    const launchFailures: string[] = [];
    const loads = [
      httpSends(ctx, HTTP_SENDS_PER_S, streamOf(options.seed, 'http')),
      smtpSends(ctx, SMTP_SENDS_PER_S),
      bigRequests(ctx),
      trackingHits(ctx, sink, tracking, streamOf(options.seed, 'tracking')),
      contactEdits(ctx, listId, CONTACTS, contacts, streamOf(options.seed, 'contacts')),
      contactImports(ctx, listId, contacts),
      runCampaigns(),
      watchCampaigns(),
      retainedSends(ctx, retained),
      pruneEveryMinute(ctx, pruner, retained),
    ];
    const guard = setInterval(() => { if (Date.now() >= stopAt) running = false; }, 250);

    async function runCampaigns() {
      const everyMs = Math.max(2, options.minutes / 8) * 60_000;
      const interfering: Array<Promise<void>> = [];
      for (let n = 0; Date.now() + 30_000 < stopAt; n += 1) {
        const wait = startedAt + 15_000 + n * everyMs - Date.now();
        if (wait > 0) await sleep(wait);
        if (Date.now() + 30_000 >= stopAt) break;
        const planned: CampaignPlan = n === 1 ? 'pause-resume' : n === 2 ? 'cancel' : 'plain';
        let campaign: SoakCampaign;
        try {
          campaign = await launchCampaign(ctx, listId, n, planned);
        } catch (error) {
          // Counted against the run: a campaign a marketer could not launch while Herald was up.
          launchFailures.push((error as Error).message);
          log(`soak: ${(error as Error).message}`);
          continue;
        }
        campaigns.push(campaign);
        log(`soak: campaign ${campaign.id} launched (${planned})`);
        interfering.push(interfere(ctx, sink, campaign, CONTACTS).catch((error) => log(`soak: campaign ${campaign.id}: ${(error as Error).message}`)));
      }
      await Promise.all(interfering);
    }
    async function watchCampaigns() {
      while (running) {
        for (const campaign of campaigns) {
          const answer = await callRecorded(answers, 'campaign_api', accountUrl(ctx, `/campaigns/${campaign.id}`), { headers: bearer(ctx.apiKey) });
          if (answer?.status === 200) campaignStates.set(campaign.id, (JSON.parse(answer.text) as { data: { state: string } }).data.state);
        }
        await sleep(3000);
      }
    }

    const faults: Fault[] = [];
    const killing = (async () => {
      for (const kill of plan.kills) {
        await sleep(startedAt + kill.atMs - Date.now());
        const sending = campaigns.filter((c) => !FINAL_STATES.includes(campaignStates.get(c.id) ?? 'SENDING')).length;
        const inFlightBound = sending * SEND_CONCURRENCY + DRAIN_TUNING.pagesInFlight * DRAIN_TUNING.pageSize;
        log(`soak: SIGKILL ${kill.target} at ${Math.round((Date.now() - startedAt) / 1000)} s`);
        faults.push({ at: Date.now(), target: kill.target, inFlightBound, duplicates: 0 });
        await fleet!.kill(processesOf(kill.target));
      }
    })();
    const diskEpisode = (async (): Promise<{ survived: boolean | null; note: string }> => {
      if (disk.unavailable) return { survived: null, note: disk.unavailable };
      await sleep(startedAt + plan.disk.atMs - Date.now());
      const errorsBefore = answers.serverErrors;
      const sending = campaigns.filter((c) => !FINAL_STATES.includes(campaignStates.get(c.id) ?? 'SENDING')).length;
      faults.push({ at: Date.now(), target: 'disk-full', inFlightBound: sending * SEND_CONCURRENCY + DRAIN_TUNING.pagesInFlight * DRAIN_TUNING.pageSize, duplicates: 0 });
      let taken = 0;
      try {
        taken = disk.fill();
      } catch (error) {
        disk.free();
        return { survived: false, note: `the disk could not be filled: ${(error as Error).message.split('\n')[0]}` };
      }
      log(`soak: disk full (${Math.round(taken / 2 ** 20)} MB taken) for ${plan.disk.durationMs / 1000} s`);
      await sleep(plan.disk.durationMs);
      disk.free();
      log('soak: disk freed; probing for recovery');
      // Recovered without a hand: a send accepted and at the sink within three minutes of the freeing.
      const probe = { to: `probe@${SOAK_DOMAIN}`, subject: 'soak disk probe' };
      const deadline = Date.now() + 180_000;
      let accepted = false;
      while (!accepted && Date.now() < deadline) {
        const answer = await callRecorded(answers, 'disk_probe', `${ctx.apiUrl}/v1/mail/send`, {
          headers: { authorization: `Bearer ${ctx.transactionalKey}`, 'idempotency-key': 'soak-disk-probe' },
          json: { from: { email: 'shop@sender.test' }, subject: probe.subject, content: { text: 'probe' }, recipients: [{ to: { email: probe.to } }] },
        });
        if (answer?.status === 202) {
          accepted = true;
          ctx.accepted.push({ ...probe, batchId: answer.headers.get('herald-batch-id') ?? '', suppressed: false, kind: 'http' });
        } else await sleep(2000);
      }
      while (accepted && !sink.copies.has(copyKey(probe.to, probe.subject)) && Date.now() < deadline) await sleep(500);
      const delivered = sink.copies.has(copyKey(probe.to, probe.subject));
      const clean = answers.serverErrors === errorsBefore;
      return { survived: delivered && clean, note: `${clean ? 'no' : answers.serverErrors - errorsBefore} server error(s) meanwhile; probe ${delivered ? 'delivered' : accepted ? 'accepted, not delivered' : 'not accepted'} ${Math.round((Date.now() - (deadline - 180_000)) / 1000)} s after the freeing` };
    })();

    await Promise.all(loads);
    clearInterval(guard);
    await killing;
    const diskOutcome = await diskEpisode;
    log('soak: load over; waiting for every process, then for the work to drain');
    await fleet.allRunning();

    // Drained: every campaign final, the sink quiet for 15 s, no tracking hit held, every webhook event delivered or discarded.
    const drainDeadline = Date.now() + DRAIN_MS;
    let webhook = await missingWebhookEvents(db, ctx.account, webhookSince, receiver);
    for (let quietSince = Date.now(), lastTotal = sink.total(); Date.now() < drainDeadline; await sleep(5000)) {
      if (sink.total() !== lastTotal) { lastTotal = sink.total(); quietSince = Date.now(); continue; }
      const states = await Promise.all(campaigns.map((c) => campaignState(ctx, c.id)));
      if (!states.every((s) => FINAL_STATES.includes(s.state)) || Date.now() - quietSince < 15_000) continue;
      const queued = await db.collection('sendQueue').countDocuments({ account: { $in: [ctx.account, retained.account] } });
      if (queued > 0) {
        log(`soak: draining: ${queued} request(s) still in the accounts' send queues`);
        continue;
      }
      // Hits on mail whose send was not recorded yet, recorded once it is (their events go to the webhook too).
      const held = await db.collection('heldHits').countDocuments({ account: ctx.account });
      if (held > 0) {
        log(`soak: draining: ${held} tracking hit(s) held until their message's send is recorded`);
        continue;
      }
      webhook = await missingWebhookEvents(db, ctx.account, webhookSince, receiver);
      if (webhook.missing.length === 0) break;
      log(`soak: draining: ${webhook.missing.length} webhook event(s) not yet delivered nor discarded`);
    }
    webhook = await missingWebhookEvents(db, ctx.account, webhookSince, receiver);

    log('soak: checking');
    const campaignSubjects = new Set(campaigns.map((c) => c.subject));
    const retainedCopies = new Set(retained.accepted.map((to) => copyKey(to, retainedSubject(to))));
    const mail = await checkMail(db, ctx.account, ctx.accepted, sink, faults, (key, subject) => campaignSubjects.has(subject) || retainedCopies.has(key));
    const campaignRows = [];
    let campaignsUnfinished = 0;
    for (const campaign of campaigns) {
      const { state, recipients } = await campaignState(ctx, campaign.id);
      const metrics = JSON.parse((await persist(ctx, 'campaign_api', `/campaigns/${campaign.id}/metrics`)).text) as { data: { sent: number } };
      const atSink = sink.bySubject.get(campaign.subject) ?? 0;
      const matches = metrics.data.sent === atSink && (state !== 'SENT' || recipients === atSink);
      const pausedOk = campaign.plan !== 'pause-resume' || (campaign.resumedAt !== undefined && state === 'SENT');
      if (!FINAL_STATES.includes(state) || !matches || !pausedOk) campaignsUnfinished += 1;
      campaignRows.push({ id: campaign.id, plan: campaign.plan, state, recipients, sent: metrics.data.sent, at_sink: atSink });
    }
    const trackingCheck = await checkTracking(db, ctx.account, tracking);
    const contactsCheck = await checkContacts(db, ctx.account, contacts);
    const retention = await checkRetention(ctx, pruner, sink, retained);
    const memoryEnd = fleet.memoryMb();
    const diskStartMb = Math.round(diskStart / 2 ** 20);
    const diskEndMb = Math.round(disk.usedBytes() / 2 ** 20);
    const diskBoundMb = diskStartMb + DISK_MB_PER_MINUTE_BOUND * options.minutes;
    const memoryOverBound = Object.entries(memoryEnd).filter(([name, mb]) => mb > MEMORY_BOUND(name, memoryStart[name as keyof typeof memoryStart] ?? mb)).map(([name]) => name);

    const base = {
      lost: mail.lost,
      server_errors: answers.serverErrors,
      duplicates_over_bound: mail.duplicatesOverBound,
      kills: plan.kills.length,
      disk_full_survived: diskOutcome.survived,
      campaigns_unfinished: campaignsUnfinished + launchFailures.length,
      webhook_events_lost: webhook.missing.length,
    };
    const extra = {
      'answers that were unclear refusals (a 4xx the call did not expect)': answers.unclearRefusals,
      'suppressed address(es) delivered to': mail.suppressedDelivered,
      'message(s) whose copies carried different Message-IDs': mail.messageIdMismatches,
      'tracking hit(s) recorded other than once, or unsubscribes inconsistent': trackingCheck.mismatched + trackingCheck.unsubscribedInconsistent,
      'contact edit(s) or import(s) not as answered': contactsCheck.editsWrong + contactsCheck.importsMissing,
      'webhook request(s) with a bad signature': receiver.badSignatures,
      'process(es) whose memory grew beyond the bound': memoryOverBound.length,
      'message(s) of the retained account not at the sink': retention.undelivered,
      'event(s) of the retained account older than its horizon left after pruning': retention.eventsPastHorizon,
      'message(s) of the retained account the daily stats miscount': retention.statsMiscount,
      'MB of data folder beyond its bound': Math.max(0, diskEndMb - diskBoundMb),
    };
    const failures = failuresOf(base, extra);
    const report: SoakReport = {
      ok: failures.length === 0,
      ...base,
      seed: options.seed, minutes: options.minutes, kill_every: options.killEveryMinutes,
      failures,
      accepted: mail.accepted, delivered: mail.delivered, failed_recorded: mail.failedRecorded,
      suppressed_dropped: mail.suppressedDropped, suppressed_delivered: mail.suppressedDelivered,
      duplicates: mail.duplicates, message_id_mismatches: mail.messageIdMismatches, delivered_without_answer: mail.deliveredWithoutAnswer,
      lost_samples: mail.lostSamples, lost_where: mail.lostWhere,
      send_queue_at_end: await db.collection('sendQueue').countDocuments({ account: ctx.account }),
      sender_at_end: await db.collection('senders').findOne({ _id: ctx.account as never }),
      sink_messages: sink.total(),
      faults: faults.map((f) => ({ at_s: Math.round((f.at - startedAt) / 1000), target: f.target, in_flight_bound: f.inFlightBound, duplicates: f.duplicates })),
      disk_episode: diskOutcome.note,
      campaigns: campaignRows, campaign_launch_failures: launchFailures,
      webhook_events: webhook.events, webhook_delivered: receiver.received.size, webhook_discarded: webhook.discarded, webhook_missing_samples: webhook.samples,
      webhook_repeats: receiver.repeats, webhook_requests: receiver.requests, webhook_refused_on_purpose: receiver.refused, webhook_bad_signatures: receiver.badSignatures,
      tracking_hits: tracking.hits, tracking_checked: trackingCheck.checked, tracking_mismatched: trackingCheck.mismatched,
      unsubscribed: tracking.unsubscribed.size, unsubscribed_inconsistent: trackingCheck.unsubscribedInconsistent, tracking_samples: trackingCheck.samples,
      contact_edits_checked: contactsCheck.edited, contact_edits_wrong: contactsCheck.editsWrong, contacts_imported: contactsCheck.imported, contacts_import_missing: contactsCheck.importsMissing, contact_samples: contactsCheck.samples,
      answers: answers.table(), unclear_refusals: answers.unclearRefusals, answer_samples: answers.samples,
      processes: fleet.counts(),
      memory_mb: { start: memoryStart, end: memoryEnd, bound: 'store: 1,536 MB (its 1 GB heap and 512 MB); the others: 1.5 x start + 150 MB', over_bound: memoryOverBound },
      disk_mb: { start: diskStartMb, end: diskEndMb, bound: diskBoundMb },
      retention: {
        account: retained.account, days: MIN_RETENTION_DAYS, kept_minutes: RETAINED_MS / 60_000, prunes: retained.prunes, prunes_ended_by_faults: retained.pruneErrors,
        accepted: retention.accepted, undelivered: retention.undelivered, events_pruned: retention.eventsPruned, events_kept: retention.eventsKept,
        events_past_horizon: retention.eventsPastHorizon, stats_sent: retention.statsSent, stats_miscount: retention.statsMiscount, unanswered: retained.unanswered,
      },
    };
    reportOk = failures.length === 0;
    printTable([
      ['seed / minutes / kill every', `${options.seed} / ${options.minutes} / ${options.killEveryMinutes}`],
      ['accepted / delivered / failed recorded', `${mail.accepted} / ${mail.delivered} / ${mail.failedRecorded}`],
      ['lost', base.lost], ['server errors (5xx but 503)', base.server_errors], ['unclear refusals', answers.unclearRefusals],
      ['duplicates (faults over bound)', `${mail.duplicates} (${base.duplicates_over_bound})`],
      ['faults', report.faults], ['disk full survived', `${String(base.disk_full_survived)}: ${diskOutcome.note}`],
      ['campaigns', campaignRows], ['webhook events / delivered / discarded / lost', `${webhook.events} / ${receiver.received.size} / ${webhook.discarded} / ${base.webhook_events_lost}`],
      ['tracking hits / mismatched', `${tracking.hits} / ${trackingCheck.mismatched}`],
      ['memory MB start -> end', Object.entries(memoryEnd).map(([n, mb]) => `${n} ${memoryStart[n as keyof typeof memoryStart]}->${mb}`).join(', ')],
      ['data folder MB start -> end (bound)', `${diskStartMb} -> ${diskEndMb} (${diskBoundMb})`],
      ['retained account: sent / pruned events / kept / past horizon / stats sent', `${retention.accepted} / ${retention.eventsPruned} / ${retention.eventsKept} / ${retention.eventsPastHorizon} / ${retention.statsSent}`],
      ['verdict', failures.length === 0 ? 'OK' : failures.join('; ')],
    ]);
    return report;
  } finally {
    await mongo?.close().catch(() => undefined);
    await pruner?.close().catch(() => undefined);
    await fleet?.stop().catch(() => undefined);
    await receiver.close();
    await sink.close();
    const logs = `${disk.dir}-logs`;
    fs.cpSync(path.join(disk.dir, 'logs'), logs, { recursive: true });
    log(`soak: the processes' logs are in ${logs}`);
    if (!reportOk) {
      // A failed run's store and Temporal files, stopped cleanly, for a look afterwards (npm start on HERALD_DATA_DIR=<it>).
      fs.cpSync(disk.dir, `${disk.dir}-data`, { recursive: true, filter: (source) => !path.basename(source).startsWith('.soak-disk-filler') });
      log(`soak: the data folder is kept in ${disk.dir}-data`);
    }
    disk.remove();
  }
}

async function main(): Promise<number> {
  let options: SoakOptions;
  try {
    options = parseSoakOptions(process.argv.slice(2));
  } catch (error) {
    process.stderr.write(`${(error as Error).message}\n`);
    return error instanceof UsageError ? 2 : 1;
  }
  const report = await soak(options);
  process.stdout.write(`${JSON.stringify(report)}\n`);
  return report.ok ? 0 : 1;
}

main().then((code) => process.exit(code), (error) => {
  process.stderr.write(`soak failed: ${(error as Error).stack ?? String(error)}\n`);
  process.exit(1);
});
