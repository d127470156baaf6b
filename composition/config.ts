import path from 'node:path';
import { projectRoot } from '../adapters/project-root';
import { describeRelaySettings, readRelaysFile, type RelaySettings } from './relays-file';

/** Herald's configuration, read from the environment once and validated. */
export interface Config {
  /** Set when Temporal is external; unset means npm start runs the embedded dev server. */
  temporalAddress?: string;
  temporalNamespace: string;
  /** The Temporal UI's address, for the console's links to workflow runs (npm start: the embedded one's). */
  temporalUiUrl?: string;
  /** Task queue of Herald's workflows; separate deployments sharing a namespace use different ones. */
  taskQueue: string;
  /** Set when MongoDB is external; unset means the embedded store of the data folder. */
  mongodbUri?: string;
  /** Database name used when the URI names none. */
  mongodbDatabase: string;
  /** Set for a real relay; unset means the local mail sink. */
  smtpRelayUrl?: string;
  /** The relays file's relays and feedback sources (HERALD_RELAYS_FILE); unset, SMTP_RELAY_URL is the one relay. */
  relays?: RelaySettings;
  apiPort: number;
  smtpPort: number;
  /** PEM files of the SMTP listener's TLS key and certificate: STARTTLS is offered when both are set. */
  smtpTlsKeyFile?: string;
  smtpTlsCertFile?: string;
  /** Refuse SMTP AUTH on connections that have not started TLS (needs the key and certificate). */
  smtpRequireTls: boolean;
  /** SMTP connections at once, in all and from one client address. */
  smtpMaxClients: number;
  smtpMaxClientsPerAddress: number;
  bindHost: string;
  publicUrl: string;
  dataDir: string;
  logLevel: string;
  /** Host name used in Message-IDs and the `mta` event field. */
  mtaHost: string;
  /** From address of the hosted opt-in's confirmation mails. */
  optinFrom: string;
  /** Read the client address of tracking hits from X-Forwarded-For (Herald behind a reverse proxy). */
  trustProxy: boolean;
  /** Allow webhook URLs on private, loopback and link-local addresses (tests, closed networks). */
  webhookAllowPrivate: boolean;
  /** The domain of per-message return paths (VERP); Herald's SMTP listener takes bounces and complaints for it. */
  bounceDomain: string;
  /** Port of a separate worker process's `GET /metrics` (0: none). */
  workerMetricsPort: number;
  /** When set, `GET /metrics` (API and worker) asks for `Authorization: Bearer <token>`; unset, it is open. */
  metricsToken?: string;
  /** A prebuilt workflow bundle (the Docker image's); unset, the worker bundles workflow code at start. */
  workflowBundle?: string;
  /** How long a campaign message waits, at most, while the worker sends transactional mail (0: never). */
  campaignYieldMs: number;
}

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n  - ${problems.join('\n  - ')}`);
    this.name = 'ConfigError';
  }
}

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

/** Reads and validates the configuration; throws ConfigError listing every problem at once. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const problems: string[] = [];
  const text = (name: string) => {
    const value = env[name]?.trim();
    return value ? value : undefined;
  };
  const port = (name: string, fallback: number) => {
    const raw = text(name);
    if (raw === undefined) return fallback;
    const value = Number(raw);
    if (!Number.isInteger(value) || value < 0 || value > 65535) {
      problems.push(`${name} must be a port number (0-65535), got "${raw}"`);
      return fallback;
    }
    return value;
  };
  const url = (name: string, protocols: string[]) => {
    const raw = text(name);
    if (raw === undefined) return undefined;
    try {
      const parsed = new URL(raw);
      if (!protocols.includes(parsed.protocol)) {
        problems.push(`${name} must start with ${protocols.map((p) => `${p}//`).join(' or ')}`);
      }
    } catch {
      problems.push(`${name} is not a valid URL`);
    }
    return raw;
  };

  const apiPort = port('HERALD_API_PORT', 8080);
  const count = (name: string, fallback: number) => {
    const raw = text(name);
    if (raw === undefined) return fallback;
    const value = Number(raw);
    if (!Number.isInteger(value) || value < 1) {
      problems.push(`${name} must be a whole number of at least 1, got "${raw}"`);
      return fallback;
    }
    return value;
  };
  const milliseconds = (name: string, fallback: number) => {
    const raw = text(name);
    if (raw === undefined) return fallback;
    const value = Number(raw);
    if (!Number.isInteger(value) || value < 0 || value > 60_000) {
      problems.push(`${name} must be a whole number of milliseconds from 0 to 60000, got "${raw}"`);
      return fallback;
    }
    return value;
  };
  const flag = (name: string) => {
    const raw = text(name)?.toLowerCase();
    if (raw === undefined || raw === 'false' || raw === '0') return false;
    if (raw === 'true' || raw === '1') return true;
    problems.push(`${name} must be true or false, got "${raw}"`);
    return false;
  };
  const smtpTlsKeyFile = text('HERALD_SMTP_TLS_KEY');
  const smtpTlsCertFile = text('HERALD_SMTP_TLS_CERT');
  if ((smtpTlsKeyFile === undefined) !== (smtpTlsCertFile === undefined)) {
    problems.push('HERALD_SMTP_TLS_KEY and HERALD_SMTP_TLS_CERT go together: set both (PEM files) or neither');
  }
  const smtpRequireTls = flag('HERALD_SMTP_REQUIRE_TLS');
  if (smtpRequireTls && !smtpTlsKeyFile) problems.push('HERALD_SMTP_REQUIRE_TLS needs HERALD_SMTP_TLS_KEY and HERALD_SMTP_TLS_CERT');
  const temporalAddress = text('TEMPORAL_ADDRESS');
  if (temporalAddress && !/^[^\s:/]+:\d+$/.test(temporalAddress)) {
    problems.push('TEMPORAL_ADDRESS must be host:port, e.g. temporal:7233');
  }
  const relaysFile = text('HERALD_RELAYS_FILE');
  let relays: RelaySettings | undefined;
  if (relaysFile && text('SMTP_RELAY_URL')) {
    problems.push('SMTP_RELAY_URL and HERALD_RELAYS_FILE are both set: name the relays in one place (the file can hold a single relay)');
  } else if (relaysFile) {
    const read = readRelaysFile(path.resolve(relaysFile));
    if ('problems' in read) problems.push(...read.problems);
    else relays = read.settings;
  }
  const logLevel = text('HERALD_LOG_LEVEL') ?? 'info';
  if (!LOG_LEVELS.includes(logLevel)) problems.push(`HERALD_LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}`);
  const bindHost = text('HERALD_BIND_HOST') ?? '127.0.0.1';
  const publicUrl = url('HERALD_PUBLIC_URL', ['http:', 'https:']) ?? `http://localhost:${apiPort}`;
  const mtaHost = text('HERALD_MTA_HOST') ?? safeHostname(publicUrl);
  // A dotless host (localhost) would make an address the send schema itself refuses.
  const optinFrom = text('HERALD_OPTIN_FROM') ?? `no-reply@${mtaHost.includes('.') ? mtaHost : `${mtaHost}.localdomain`}`;
  // A bare address: it goes into the From header of every confirmation mail.
  if (!/^[^\s@<>(),;:"\\]+@[^\s@<>(),;:"\\]+$/.test(optinFrom)) problems.push('HERALD_OPTIN_FROM must be an email address, e.g. no-reply@example.com');

  const bounceDomain = (text('HERALD_BOUNCE_DOMAIN') ?? `bounces.${mtaHost.includes('.') ? mtaHost : `${mtaHost}.localdomain`}`).toLowerCase();
  if (!/^[a-z0-9-]+(\.[a-z0-9-]+)+$/.test(bounceDomain)) problems.push('HERALD_BOUNCE_DOMAIN must be a domain name, e.g. bounces.example.com');

  const config: Config = {
    temporalAddress,
    temporalNamespace: text('TEMPORAL_NAMESPACE') ?? 'default',
    temporalUiUrl: url('HERALD_TEMPORAL_UI_URL', ['http:', 'https:']),
    taskQueue: text('HERALD_TASK_QUEUE') ?? 'herald',
    mongodbUri: url('MONGODB_URI', ['mongodb:', 'mongodb+srv:']),
    mongodbDatabase: text('HERALD_MONGODB_DATABASE') ?? 'herald',
    smtpRelayUrl: url('SMTP_RELAY_URL', ['smtp:', 'smtps:']),
    relays,
    apiPort,
    smtpPort: port('HERALD_SMTP_PORT', 2525),
    smtpTlsKeyFile,
    smtpTlsCertFile,
    smtpRequireTls,
    smtpMaxClients: count('HERALD_SMTP_MAX_CLIENTS', 200),
    smtpMaxClientsPerAddress: count('HERALD_SMTP_MAX_CLIENTS_PER_ADDRESS', 20),
    bindHost,
    publicUrl: publicUrl.replace(/\/+$/, ''),
    dataDir: path.resolve(text('HERALD_DATA_DIR') ?? path.join(projectRoot, '.herald-data')),
    logLevel,
    mtaHost,
    optinFrom,
    trustProxy: flag('HERALD_TRUST_PROXY'),
    webhookAllowPrivate: flag('HERALD_WEBHOOK_ALLOW_PRIVATE'),
    bounceDomain,
    workerMetricsPort: port('HERALD_WORKER_METRICS_PORT', 9464),
    metricsToken: text('HERALD_METRICS_TOKEN'),
    workflowBundle: text('HERALD_WORKFLOW_BUNDLE'),
    campaignYieldMs: milliseconds('HERALD_CAMPAIGN_YIELD_MS', 50),
  };
  if (problems.length > 0) throw new ConfigError(problems);
  return config;
}

function safeHostname(url: string): string {
  try {
    return new URL(url).hostname || 'localhost';
  } catch {
    return 'localhost';
  }
}

/** The configuration with secrets masked, for logs and the start banner. */
export function describeConfig(config: Config): Record<string, unknown> {
  return {
    ...config,
    mongodbUri: config.mongodbUri && redactUrl(config.mongodbUri),
    smtpRelayUrl: config.smtpRelayUrl && redactUrl(config.smtpRelayUrl),
    relays: config.relays && describeRelaySettings(config.relays),
    metricsToken: config.metricsToken && '***',
  };
}

/** Hides the password of a URL (user:pass@host → user:***@host). */
export function redactUrl(raw: string): string {
  try {
    const parsed = new URL(raw);
    if (parsed.password) parsed.password = '***';
    return parsed.toString();
  } catch {
    return '(unparseable URL)';
  }
}
