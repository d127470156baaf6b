// The composition root: every part of Herald built from one Config. `npm start`, the separate
// entry points (API, SMTP, worker), the CLI, the tests' stacks and the benchmarks all build here,
// each asking only for the parts it needs. A part is built once, on first request, and
// `close()` ends everything built, in the reverse order of what depends on what.
import type http from 'node:http';
import path from 'node:path';
import type tls from 'node:tls';
import type Koa from 'koa';
import type { Client } from '@temporalio/client';
import type { SMTPServer } from 'smtp-server';
import type { ApiDeps } from '../api/app';
import { createHttpsGet, type HttpsGet } from '../adapters/http/https-get';
import { createLogger, type Logger } from '../adapters/logger';
import { migrateLegacyLedger } from '../adapters/store/ledger-migration';
import { createThreadedRelay, type ThreadedRelay } from '../adapters/relay/thread';
import { RelayStatus, shareRelays } from '../adapters/relay/relay-shares';
import type { RelaySender } from '../adapters/relay/transport';
import type { RouterEvents } from '../adapters/relay/router';
import type { RelayDefinition } from '../adapters/relay/routes';
import { metrics } from '../adapters/metrics/registry';
import { singleRelay } from './relays-file';
import { connectStore, type Store } from '../adapters/store/store';
import type { CampaignTuning } from '../adapters/temporal/contracts';
import { optinSettings } from '../core/optin/mail';
import type { WebhookTuning } from '../core/webhooks/delivery-pass';
import type { DrainTuning } from '../core/transactional/drain';
import type { PruneTuning } from '../core/retention/pages';
import type { SmtpOptions } from '../smtp/server';
import type { Config } from './config';
import { loadConsoleAssets } from '../api/console/assets';
import { projectRoot } from '../adapters/project-root';
import type { HeraldWorker } from './worker';

/** What only tests and benchmarks change; production takes every default. */
export interface HeraldTuning {
  /** The logger of every part; by default JSON logs at the configured level. */
  logger?: Logger;
  /** Batching and polling of webhook delivery. */
  webhookTuning?: Partial<WebhookTuning>;
  /** Page size and deferral retries of campaign launches. */
  campaignTuning?: Partial<CampaignTuning>;
  /** Paging and idling of the send queues' drains. */
  drainTuning?: Partial<DrainTuning>;
  /** Page size and pause of retention's pruning. */
  retentionTuning?: Partial<PruneTuning>;
  /** SMTP listener options beyond the configuration (benchmarks: per-address limits, close timeout). */
  smtp?: Partial<SmtpOptions>;
  /** More TLS options of the bounce mailbox's IMAP connection (tests: the CA of their server's certificate). */
  bounceMailboxTls?: tls.ConnectionOptions;
  /** Connect to Temporal on first use rather than at build (tests of an API whose Temporal is down). */
  lazyTemporal?: boolean;
  /** The API's outgoing HTTPS GET (SNS certificates and subscription confirmations); tests answer it themselves. */
  httpsGet?: HttpsGet;
}

export interface Herald {
  readonly config: Config;
  readonly logger: Logger;
  store(): Promise<Store>;
  /** The Temporal client that starts and signals workflows (API, SMTP, CLI). */
  temporal(): Promise<Client>;
  /** The relay transport, on a thread of its own. */
  relay(): RelaySender;
  /** The Temporal worker with every workflow and activity; `run()` polls until `close()`. */
  worker(): Promise<HeraldWorker>;
  /** The API's HTTP server (not yet listening). */
  apiServer(): Promise<http.Server>;
  /** The Koa application the API server runs (its routers, for the OpenAPI check). */
  apiApp(): Promise<Koa>;
  /** The SMTP submission listener (not yet listening). */
  smtpServer(): Promise<SMTPServer>;
  /** Stops what was built: listeners, worker, relay, Temporal connection, store. */
  close(): Promise<void>;
}

/** The configured address, or a clear error: entry points fill them (infra/stack-record.ts) before building. */
function required<K extends 'mongodbUri' | 'temporalAddress' | 'smtpRelayUrl'>(config: Config, key: K): string {
  const value = config[key];
  const names = { mongodbUri: 'MONGODB_URI', temporalAddress: 'TEMPORAL_ADDRESS', smtpRelayUrl: 'SMTP_RELAY_URL' };
  if (!value) throw new Error(`${names[key]} is not set, and no \`npm start\` of this data folder is running to provide it.`);
  return value;
}

/** Computes a value once, on first use. */
function memo<T>(make: () => T): () => T {
  let made: { value: T } | undefined;
  return () => (made ??= { value: make() }).value;
}

/** Memoizes a part: built on first use, the same one after (a failed build is tried again). */
function once<T>(build: () => Promise<T>): () => Promise<T> {
  let made: Promise<T> | undefined;
  return () => {
    made ??= build().catch((error: unknown) => {
      made = undefined;
      throw error;
    });
    return made;
  };
}

export function composeHerald(config: Config, tuning: HeraldTuning = {}): Herald {
  const logger = tuning.logger ?? createLogger(config.logLevel, 'herald');
  const closers: Array<() => Promise<void>> = [];
  const onClose = (close: () => Promise<void>) => { closers.push(close); };

  const store = once(async () => {
    const made = await connectStore(required(config, 'mongodbUri'), config.mongodbDatabase, { logger });
    onClose(() => made.close());
    // A store written by a release before 2026-11-29 keeps its ledger in `messages`: moved before anything reads it.
    const moved = await migrateLegacyLedger(made);
    if (moved > 0) logger.info({ moved }, 'send ledger rows moved onto their outcome events (docs/architecture.md, "One record per outcome")');
    return made;
  });
  const temporal = once(async () => {
    const address = required(config, 'temporalAddress');
    // Loaded on first use: the CLI and other store-only users skip the Temporal SDK (~0.25 s a start).
    const { connectTemporal, lazyTemporal } = await import('../adapters/temporal/client');
    const made = tuning.lazyTemporal ? lazyTemporal(address, config.temporalNamespace) : await connectTemporal(address, config.temporalNamespace);
    onClose(() => made.connection.close());
    return made;
  });
  const relaySet = memo(() => (config.relays ?? singleRelay(required(config, 'smtpRelayUrl'))).relays);
  const relayStatus = memo(() => new RelayStatus(relaySet()));
  const relay = memo((): ThreadedRelay => {
    const made = createThreadedRelay(relaySet(), relayEvents(relaySet(), relayStatus(), logger));
    onClose(async () => { await made.close(); });
    return made;
  });
  // The relays' limits split among the worker processes, before this one sends anything.
  const relayShares = once(async () => {
    const shares = shareRelays({ store: await store(), relays: relaySet(), status: relayStatus(), target: relay() });
    onClose(() => shares.stop());
    await shares.tick();
    return shares;
  });
  // The API, the SMTP listener and the worker are loaded when asked for: a process that runs one
  // of them (a worker alone, say) does not load, nor keep in memory, the others' modules.
  const worker = once(async () => {
    const { createHeraldWorker } = await import('./worker');
    await relayShares();
    const made = await createHeraldWorker(config, {
      store: await store(), relay: relay(), webhookTuning: tuning.webhookTuning, campaignTuning: tuning.campaignTuning, drainTuning: tuning.drainTuning,
      retentionTuning: tuning.retentionTuning, logger, bounceMailboxTls: tuning.bounceMailboxTls,
    });
    onClose(() => made.close());
    return made;
  });
  const httpsGet = memo(() => tuning.httpsGet ?? createHttpsGet());
  const consoleAssets = memo(() => loadConsoleAssets(path.join(projectRoot, 'dist', 'console')));
  const apiDeps = async (): Promise<ApiDeps> => ({
    store: await store(), temporal: await temporal(), taskQueue: config.taskQueue,
    namespace: config.temporalNamespace, logger, optin: optinSettings(config), metricsToken: config.metricsToken,
    webhookAllowPrivate: config.webhookAllowPrivate, tracking: { publicUrl: config.publicUrl, trustProxy: config.trustProxy },
    console: { assets: consoleAssets(), settings: { temporalUi: config.temporalUiUrl ?? null, namespace: config.temporalNamespace } },
    feedback: { settings: config.relays?.feedback ?? {}, httpsGet: httpsGet() },
    // Not relaySet(): an API process may run without SMTP_RELAY_URL (it sends nothing itself).
    relays: config.relays?.relays ?? (config.smtpRelayUrl ? singleRelay(config.smtpRelayUrl).relays : []),
  });
  const apiServer = once(async () => {
    const { createApiServer } = await import('../api/app');
    const server = createApiServer(await apiDeps());
    onClose(() => closeHttp(server));
    return server;
  });
  const smtpServer = once(async () => {
    const [{ createSmtpServer }, { smtpOptionsFrom }] = await Promise.all([import('../smtp/server'), import('../smtp/options')]);
    const deps = { store: await store(), temporal: await temporal(), taskQueue: config.taskQueue, logger };
    const server = createSmtpServer(deps, { ...smtpOptionsFrom(config), ...tuning.smtp });
    onClose(() => new Promise<void>((resolve) => server.close(() => resolve())));
    return server;
  });

  return {
    config,
    logger,
    store,
    temporal,
    relay,
    worker,
    apiServer,
    apiApp: async () => (await import('../api/app')).createApp(await apiDeps()),
    smtpServer,
    async close() {
      // Built last, closed first: listeners and the worker stop before the connections they use.
      for (const close of closers.splice(0).reverse()) await close();
    },
  };
}

/** The relays' outcomes and health into the metrics and the process's relay status, and a relay going down or coming back into the log. */
function relayEvents(relays: RelayDefinition[], status: RelayStatus, logger: Logger): RouterEvents {
  for (const { name } of relays) metrics.relayUp.set({ relay: name }, 1);
  return {
    outcome(relay, outcome, count = 1) {
      metrics.relayMessages.inc({ relay, outcome }, count);
      status.counted(relay, outcome, count);
    },
    health(relay, up, reason) {
      metrics.relayUp.set({ relay }, up ? 1 : 0);
      status.health(relay, up);
      if (up) logger.info({ relay }, 'relay is up again');
      else logger.warn({ relay, reason }, 'relay is down: its messages go to the next relay that takes them');
    },
  };
}

/** Stops taking connections, ends idle keep-alive ones, and resolves once the server closed. */
function closeHttp(server: http.Server): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve());
    server.closeIdleConnections();
  });
}
