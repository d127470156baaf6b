// The Temporal worker with every workflow and activity, built from the configuration and the
// parts the composition root made (store, relay). Workflow code is bundled at start, or taken
// prebuilt from HERALD_WORKFLOW_BUNDLE (the Docker image).
import { Client } from '@temporalio/client';
import { NativeConnection, Worker } from '@temporalio/worker';
import { createActivities } from '../activities';
import type { RelaySender } from '../adapters/relay/transport';
import type { Store } from '../adapters/store/store';
import type { CampaignTuning } from '../adapters/temporal/contracts';
import type { WebhookTuning } from '../core/webhooks/delivery-pass';
import type tls from 'node:tls';
import { ensureSweeper, sweepersOf, syncBounceMailboxSchedule } from '../adapters/temporal/schedules';
import { imapMailboxClient } from '../adapters/imap/imap-client';
import type { Logger } from '../adapters/logger';
import type { DrainTuning } from '../core/transactional/drain';
import type { PruneTuning } from '../core/retention/pages';
import { SendPriority } from '../core/sending/priority';
import type { Config } from './config';

/** How long a stopping worker waits for its running activities (a long one, a campaign's page, is cancelled after it and resumes from its checkpoint). */
const SHUTDOWN_GRACE = '10 seconds';

export interface WorkerParts {
  store: Store;
  relay: RelaySender;
  webhookTuning?: Partial<WebhookTuning>;
  campaignTuning?: Partial<CampaignTuning>;
  drainTuning?: Partial<DrainTuning>;
  retentionTuning?: Partial<PruneTuning>;
  /** Herald's logger (the bounce mailbox reader logs with it). */
  logger?: Logger;
  /** More TLS options of the bounce mailbox's connection (tests: their server's CA). */
  bounceMailboxTls?: tls.ConnectionOptions;
}

export interface HeraldWorker {
  readonly worker: Worker;
  /** Polls until close() (or the SDK's own SIGINT/SIGTERM handling); the same promise on every call. */
  run(): Promise<void>;
  /** Shuts the worker down if it runs (its activities finish), then closes its connection. */
  close(): Promise<void>;
}

export async function createHeraldWorker(config: Config, parts: WorkerParts): Promise<HeraldWorker> {
  if (!config.temporalAddress) throw new Error('TEMPORAL_ADDRESS is not set: the worker needs Temporal.');
  const connection = await NativeConnection.connect({ address: config.temporalAddress });
  const bounceMailbox = config.relays?.feedback.mailbox;
  try {
    const stopping = new AbortController();
    const worker = await Worker.create({
      connection,
      namespace: config.temporalNamespace,
      taskQueue: config.taskQueue,
      // A stop lets running activities finish first: one cancelled between the relay's 250 and
      // the outcome's record would send its message again on the next start (the SDK's default is 0).
      shutdownGraceTime: SHUTDOWN_GRACE,
      ...(config.workflowBundle
        ? { workflowBundle: { codePath: config.workflowBundle } }
        : { workflowsPath: require.resolve('../workflows') }),
      activities: createActivities({
        store: parts.store, transport: parts.relay, mtaHost: config.mtaHost, publicUrl: config.publicUrl, bounceDomain: config.bounceDomain,
        webhookAllowPrivate: config.webhookAllowPrivate, webhookTuning: parts.webhookTuning, campaignTuning: parts.campaignTuning, drainTuning: parts.drainTuning,
        retentionTuning: parts.retentionTuning,
        priority: new SendPriority(config.campaignYieldMs),
        bounceMailbox, mailboxClient: imapMailboxClient({ tls: parts.bounceMailboxTls }), logger: parts.logger,
        stopping: stopping.signal,
      }),
    });
    // The sweepers' schedules, created by whichever worker starts first (idempotent).
    const client = new Client({ connection, namespace: config.temporalNamespace });
    for (const sweeper of sweepersOf(config.taskQueue)) await ensureSweeper(client, config.taskQueue, sweeper);
    // The bounce mailbox reader's, as this worker's relays file says: created or updated, or paused once the setting is gone.
    const mailboxSchedule = await syncBounceMailboxSchedule(client, config.taskQueue, bounceMailbox && (bounceMailbox.everySeconds ?? 60));
    if (mailboxSchedule !== 'absent' && mailboxSchedule !== 'kept') parts.logger?.info({ schedule: mailboxSchedule }, 'bounce mailbox reader schedule');
    let running: Promise<void> | undefined;
    return {
      worker,
      run: () => (running ??= worker.run()),
      async close() {
        stopping.abort();
        if (running) {
          if (worker.getState() === 'RUNNING') worker.shutdown();
          await running;
        }
        await connection.close();
      },
    };
  } catch (error) {
    await connection.close();
    throw error;
  }
}
