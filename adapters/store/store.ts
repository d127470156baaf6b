import {
  Binary, BSON, Collection, Db, GridFSBucket, MongoClient, MongoError, MongoInvalidArgumentError, MongoNetworkError, MongoServerSelectionError, ObjectId,
  type Document, type OptionalUnlessRequiredId,
} from 'mongodb';
import { watchClient, type WatchdogLogger } from './client-watchdog';
import { stopScoped } from './per-store';
import { isRefusedStatement, refusedStatements } from './bulk-writes';
import { firstConnect } from '../first-connect';

// Document shapes. Every document carries `account`; every query is scoped by it.

/**
 * An account. `settings` is its sending policy, set by an operator with `herald account set`
 * (absent fields take the defaults of core/accounts/settings.ts).
 */
export interface AccountDoc {
  _id: string;
  name?: string;
  createdAt: Date;
  settings?: {
    /** Whether transactional sends may carry attachments (the spec: "enabled on the account by request"). */
    attachments?: boolean;
    /** Messages (recipients) accepted per calendar month (UTC); null or absent: no limit. */
    monthlyLimit?: number | null;
    /** Lowercase domains a send's From may use; empty or absent: any. */
    senderDomains?: string[];
    /** Custom trigger events accepted per clock hour (default 200). */
    triggerHourlyLimit?: number;
    /** Days request bodies and message events are kept (default 45; core/retention/). */
    retentionDays?: number;
  };
}

export type KeyKind = 'api' | 'transactional';
/**
 * A key, stored only as the SHA-256 of the key (keys are long random strings). API keys belong
 * to a user (`userId`) and carry that user's permissions; `id` numbers them per account.
 */
export interface KeyDoc { _id: string; account: string; kind: KeyKind; id: number; userId?: number; hint: string; createdAt: Date }

/** A person or integration of an account; permissions are the original's ACL strings. */
export interface UserDoc {
  _id: string; // `<account>:<id>`
  account: string;
  id: number;
  /** Normalised (lowercase); absent for the account's first user, which only has a key. */
  email?: string;
  /** Shown as `user` at login: the part of the email before the @, or "owner". */
  username: string;
  /** scrypt, see core/accounts/passwords.ts; absent when the user cannot log in with a password. */
  passwordHash?: string;
  /** Login answers PASSWORD_EXPIRED until a newPassword is given. */
  passwordExpired: boolean;
  permissions: string[];
  created: Date;
  lastModified: Date;
}

/** A login session, stored only as the SHA-256 of its token; expiry slides with use. */
export interface SessionDoc { _id: string; account: string; userId: number; expiresAt: Date; createdAt: Date }

/** A list of contacts (membership is on the contact: ContactDoc.lists). */
export interface ListDoc {
  _id: string; // `<account>:<id>`
  account: string;
  id: number;
  name: string;
  description: string;
  tags: string[];
  created: Date;
  lastModified: Date;
  lastMailed: Date | null;
}

/** An interest contacts may have (ContactDoc.interests); expirationDays 0 = never expires. */
export interface InterestDoc {
  _id: string; // `<account>:<id>`
  account: string;
  id: number;
  name: string;
  description: string;
  expirationDays: number;
  created: Date;
  lastModified: Date;
  lastMailed: Date | null;
}

export type FieldFormat = 'TEXT' | 'INT' | 'DATE';
/** A custom field (ids from 10; 1–9 are the built-in fields, which are not stored). */
export interface FieldDoc {
  _id: string; // `<account>:<id>`
  account: string;
  id: number;
  name: string;
  /** The substitution variable name, upper case (NUMERODECLIENTE). */
  tag: string;
  format: FieldFormat;
  created: Date;
  lastModified: Date;
}

export type ContactState = 'ACTIVE' | 'BOUNCED' | 'UNSUBSCRIBED' | 'COMPLAINED';
/** A contact; email is unique per account (normalised lowercase). */
export interface ContactDoc {
  _id: string; // `<account>:<id>`
  account: string;
  id: number;
  email: string;
  firstName: string;
  lastName: string;
  gender: '' | 'M' | 'F';
  language: '' | 'de' | 'en' | 'es' | 'fr' | 'it' | 'pt';
  preferredFormat: 'HTML' | 'TEXT';
  source: string;
  state: ContactState;
  quality: number;
  /** Ids of the lists the contact is in. */
  lists: number[];
  interests: Array<{ id: number; subscribed: Date }>;
  /** Custom field id → value (a string, checked against the field's format). */
  customFields: Record<string, string>;
  created: Date;
  lastModified: Date;
  lastMailed: Date | null;
  lastAction: Date | null;
  inactivated: Date | null;
}

/** Per-account integer ids: `<account>:<namespace>` → the last id given. */
export interface CounterDoc { _id: string; seq: number }

/**
 * An accepted transactional request: the claim check the workflow receives the id of. What the
 * client sent is kept as one opaque string, never as documents whose shape the client chose
 * (see core/transactional/request.ts).
 */
export interface SendRequestDoc {
  _id: string;
  account: string;
  source: 'http' | 'smtp';
  /** JSON of the validated body (http) or of the envelope and the parsed message (smtp). */
  payload: string;
  /** Herald's own mail: an opt-in confirmation goes out whatever the suppression list says. */
  purpose?: 'optin-confirmation';
  /** The batch id of its events (`DELETE /v1/mail/batches/{batch_id}` cancels by it). */
  batchId: string;
  /** launch_date: sent then, not before. */
  launchAt?: Date;
  acceptedAt: Date;
  /** Its batch was cancelled: what was not sent by then is dropped, never sent. */
  cancelledAt?: Date;
}

/**
 * An accepted request waiting for its account's sender (the outbox, core/transactional/send-queue.ts):
 * inserted once its SendRequestDoc is stored, removed once every message of it has its ledger row.
 * Its ObjectId _id orders the queue (the acceptance order, per API process).
 */
export interface SendQueueDoc {
  _id: ObjectId;
  account: string;
  requestId: string;
  batchId: string;
  /** Claimed by the account's sender: it may have sent some messages (resume from the ledger), and the API no longer forgets it. */
  taken?: true;
  /** Sends the relay deferred (4xx) so far; absent before the first. */
  deferrals?: number;
  /** Deferred: not sent again before this time. */
  dueAt?: Date;
}

/** An account's sender as the API sees it (core/transactional/doorbell.ts): draining its queue until `drainingUntil`. */
export interface SenderDoc {
  _id: string; // the account
  drainingUntil: Date;
}

/** The send ledger's fields of a message, kept on its outcome event (core/sending/ledger.ts). */
export interface LedgerFields {
  requestId: string;
  messageId: string;
  /** dropped: never sent (a suppressed or unsubscribed address, a cancelled batch). */
  status: 'sent' | 'failed' | 'dropped';
  relayResponse: string;
  sentAt: Date;
  /** The Temporal run that sent it (transactional requests): where an operator finds its activity. */
  sentBy?: { workflowId: string; runId: string };
}

/**
 * A row of the send ledger: the outcome event of a message (sent, bounced at send, dropped),
 * marked by `_outcome_of` (its mail_id: a unique index keeps one outcome per message) with the
 * ledger's fields under `_ledger`. Herald's bookkeeping, never shown (fields starting with `_` are
 * not the event's). One durable record per outcome.
 */
export interface LedgerRowDoc extends EventDoc {
  /** Top-level, not in `_ledger`: the store answers `$in` on a top-level unique key ~5 times faster. */
  _outcome_of: string;
  _ledger: LedgerFields;
}

/**
 * A row of the ledger as releases before 2026-11-29 kept it, in `messages`, beside its event in
 * `events`: read only by the migration that moves it onto its event (./ledger-migration.ts).
 */
export interface LegacyMessageDoc {
  _id: string;
  account: string;
  requestId: string;
  email: string;
  messageId: string;
  status: LedgerFields['status'];
  relayResponse: string;
  sentAt: Date;
  event: EventDoc;
  sentBy?: LedgerFields['sentBy'];
}

/** A tracking event with exactly the spec's fields, plus `_id` (the cursor order). */
export interface EventDoc {
  _id: ObjectId;
  account: string;
  track_id: string;
  track_type: string;
  timestamp: string;
  sent_timestamp: string;
  hour_of_day: number;
  day_of_week: number;
  batch_id: string;
  mail_id: string;
  mail_type: string;
  email: string;
  domain: string;
  tags: string[];
  custom_args: Record<string, string>;
  mta: string;
  [extra: string]: unknown;
}

/**
 * A tracked link's stored fields: i its link_id, t where a click redirects, r the URL the click
 * reports (absent: the target), n its interests (absent: none). The JSON of a click token's
 * carried link part, and an entry of a link table (core/content/tracking/token.ts).
 */
export interface LinkEntry { i: number; t: string; r?: string; n?: string[] }

/**
 * The click links every message of a request carries alike (a campaign send's), stored once: a
 * click token names its entry by link_id (core/content/tracking/link-tables.ts). `_id` is
 * `<account>:<requestId>`. Written before any message that refers to it, never changed.
 */
export interface LinkTableDoc {
  _id: string;
  account: string;
  requestId: string;
  links: LinkEntry[];
  createdAt: Date;
}

/** Task states: QUEUED at creation, then INITIALIZING and PROCESSING while it runs, and one of the last three. */
export type TaskState = 'QUEUED' | 'INITIALIZING' | 'PROCESSING' | 'FINISHED' | 'FAILED' | 'CANCELLED';

/** An asynchronous operation (import, export, campaign launch) run by a workflow; the spec's Task plus its bookkeeping. */
export interface TaskDoc {
  _id: string; // `<account>:<id>`
  account: string;
  id: number;
  type: string;
  name: string;
  state: TaskState;
  cancellable: boolean;
  message: string;
  /** Username of the user that started it; ownerId is that user's id (the cancel rule). */
  owner: string;
  ownerId: number;
  created: Date;
  init: Date | null;
  end: Date | null;
  /** 0..1 */
  completed: number;
  /** Seconds left, -1 when unknown. */
  eta: number;
  /** The path that created it, without /v2. */
  request: string;
  parameters: Record<string, unknown>;
  result: unknown;
  workflowId: string;
}

/** Campaign states (the spec's campaign state table). */
export type CampaignState = 'DRAFT' | 'SCHEDULED' | 'PENDING_APPROVAL' | 'SENDING' | 'SENT' | 'CANCELLED';

/**
 * What a campaign's `include[campaigns]`/`exclude[campaigns]` member selects of another campaign's
 * recipients (the original's report actions): SENT every recipient it was sent to, OPENED those
 * who opened it, CLICKED those who clicked, and the NO_ variants the others it was sent to.
 */
export type CampaignAction = 'SENT' | 'OPENED' | 'CLICKED' | 'NO_OPEN' | 'NO_CLICK';

/** Who a campaign is sent to (include) or not (exclude). */
export interface CampaignAudience {
  lists: number[];
  interests: number[];
  campaigns: Array<{ id: number; action: CampaignAction }>;
}

/** A campaign's one content (the spec allows one per campaign). */
export interface CampaignContentDoc {
  id: number;
  type: 'HTML';
  subject: string;
  from: string;
  fromName: string;
  replyTo: string;
  replyToName: string;
  unsubscribeText: string;
  /** The HTML sent (an MJML body's compiled output); null until set. */
  html: string | null;
  /** The plain-text part; null: none. */
  text: string | null;
  /** An MJML body as given, when the body was MJML (html holds it compiled, once). */
  mjml?: string;
  created: Date;
  lastModified: Date;
}

/** The launch under way, or the last one: its task and workflow, and what it found and did. */
export interface CampaignLaunchDoc {
  taskId: number;
  workflowId: string;
  /** Paused by POST …/pause: no page is sent until resumed. */
  paused: boolean;
  /** Recipients in the snapshot, once taken. */
  snapshotTotal?: number;
  /** Resend rounds started (0: none; round n sends to the failed of the rounds before it). */
  rounds?: number;
  /** The task of the latest resend round (CAMPAIGN_RESEND): one runs at a time. */
  resendTaskId?: number;
}

/** A campaign (core/campaigns/). Options are stored under the spec's neutral keys. */
export interface CampaignDoc {
  _id: string; // `<account>:<id>`
  account: string;
  id: number;
  name: string;
  description: string;
  tags: string[];
  type: 'SIMPLE';
  state: CampaignState;
  launchMode: 'NOW' | 'SCHEDULED';
  launchDate: Date | null;
  created: Date;
  lastModified: Date;
  /** When it was archived; null: not archived. */
  archived: Date | null;
  thumbnail: string | null;
  options: Record<string, string>;
  include: CampaignAudience;
  exclude: CampaignAudience;
  content: CampaignContentDoc | null;
  /** null until sent; then the count of recipients in its snapshot. */
  recipients: number | null;
  launch?: CampaignLaunchDoc;
}

/**
 * One recipient of a launched campaign, as the audience was when the launch began (the
 * snapshot); `seq` numbers the recipient's message (its mail_id).
 */
export interface CampaignRecipient {
  seq: number;
  contactId: number;
  email: string;
  firstName: string;
  lastName: string;
  gender: string;
  language: string;
  /** Custom field id → value, as on the contact. */
  customFields: Record<string, string>;
}

/**
 * A part of a launch's recipient snapshot: the recipients of seqs `part * size` up to
 * `(part + 1) * size` (core/campaigns/snapshot.ts: SNAPSHOT_PART_SIZE), one document for many
 * recipients so that taking and reading a snapshot costs the store a write and a read per part.
 * `_id` is `<account>:<campaign id>:<launch task id>:<part, 10 digits>`.
 */
export interface CampaignSnapshotPartDoc {
  _id: string;
  account: string;
  campaignId: number;
  /** The launch's task (CampaignLaunchDoc.taskId): a later launch of the campaign takes a snapshot of its own. */
  taskId: number;
  part: number;
  recipients: CampaignRecipient[];
}

/** A file kept in the store (GridFS `files` bucket): an uploaded import source or an export. */
export interface StoredFileMetadata { account: string; kind: 'upload' | 'export'; contentType: string }

/**
 * An address of the account's suppression list: it gets no mail (a send to it is dropped with a
 * `track.mail.dropped` event). `_id` is `<account>:<lowercase email>`.
 */
export interface SuppressionDoc {
  _id: string;
  account: string;
  email: string;
  /** `manual`: added through the account API without one of the others. */
  reason: 'unsubscribed' | 'bounced' | 'complained' | 'manual';
  created: Date;
  /**
   * What put it there: `relay` (a hard refusal at sending), `report` (a bounce or complaint
   * report), `unsubscribe` (the page or one-click), `api` (POST …/suppressions). Absent on
   * entries stored before it was kept.
   */
  source?: SuppressionSource;
}

export type SuppressionSource = 'relay' | 'report' | 'unsubscribe' | 'api' | 'migration';

/** What a migration brought over (core/migration/): one per source element, so a re-run updates instead of creating twice. */
export interface MigrationMapDoc {
  _id: string; // `<account>|<source>|<kind>|<source id>`
  account: string;
  /** The source's API root and account (`https://api.example.com/v2|acme`). */
  source: string;
  kind: string;
  sourceId: string;
  targetId: number | string;
  /** A digest of what was written: a re-run skips an element the source did not change. */
  digest?: string;
}

/**
 * The source's API key of a migration started through the API (ACCOUNT_MIGRATION): kept apart
 * from the task (whose parameters anyone listing tasks sees) and from Temporal's history, and
 * deleted when the task ends.
 */
export interface MigrationKeyDoc {
  _id: string; // `<account>:<task id>`
  account: string;
  key: string;
}

/** A migration of an account from a source: where it is, for a run killed midway to go on. */
export interface MigrationDoc {
  _id: string; // `<account>|<source>`
  account: string;
  source: string;
  started: Date;
  finished: Date | null;
  /** The steps done, in order, and each one's report (core/migration/report.ts). */
  done: string[];
  reports?: Record<string, unknown>;
  /** Per kind, what the source looked like at its last full read (core/migration/mapping.ts SourceMark); kept across runs. */
  marks?: Record<string, SourceMark>;
}

/** When a full read of a kind began, by the source's own clock, and how many elements it found. */
export interface SourceMark { readStarted: string; total: number }

/** A claimed `Idempotency-Key` of a send and, once accepted, its answer (core/transactional/idempotency.ts). */
export interface IdempotencyDoc {
  _id: string; // `<account>:<SHA-256 of the key>`
  account: string;
  /** SHA-256 of the request's validated body: the same key with another body is refused. */
  fingerprint: string;
  created: Date;
  answer?: { requestId: string; batchId: string };
}

/**
 * A DKIM key of one of the account's sender domains (one per domain). The private key signs
 * outgoing mail and is never shown again once stored.
 */
export interface DkimKeyDoc {
  _id: string; // `<account>:<id>`
  account: string;
  id: number;
  domain: string;
  selector: string;
  privateKey: string; // PKCS#8 PEM
  publicKey: string; // base64 SPKI, the DNS record's p=
  created: Date;
}

/** A template or folder of the account (core/content/templates.ts): ids are paths, `/12` or `/3/12`. */
export type TemplateType = 'HTML' | 'MJML' | 'FOLDER';

export interface TemplateAddress { email: string; name?: string }

export interface TemplateDoc {
  _id: string; // `<account>:<number>`
  account: string;
  /** From the account's `templates` counter; the last part of the id. */
  number: number;
  /** The path: `/<number>` at the top, `/<folder number>/<number>` in a folder. */
  id: string;
  /** The parent folder's path, `/` at the top. */
  location: string;
  type: TemplateType;
  name: string;
  subject: string | null;
  from: TemplateAddress | null;
  reply_to: TemplateAddress | null;
  /** HTML and MJML templates: the HTML a send uses (MJML's compiled output). */
  html?: string;
  /** MJML templates: the source as given. */
  mjml?: string;
  /** HTML and MJML templates: 1 at creation, +1 for each new body. */
  version?: number;
  created: Date;
  lastModified: Date;
}

/** What a listing shows: everything but the bodies. */
/**
 * A pending double opt-in: what a visitor asked for on a list's hosted form, waiting for the
 * click in the confirmation mail (core/optin/subscribe.ts). `_id` is the SHA-256 of the mail's token (the
 * token itself is never stored). One per account, list and email (a unique index decides
 * between simultaneous submits); expiry is checked on read (no TTL index on the embedded store).
 */
export interface OptinConfirmationDoc {
  _id: string;
  account: string;
  listId: number;
  /** Normalised (lowercase). */
  email: string;
  /** '' when not given: a confirmation fills names only when given. */
  firstName: string;
  lastName: string;
  interests: number[];
  /** An http(s) URL followed after a successful confirmation. */
  redirect?: string;
  /** When it was asked for and its mail sent: the repeat limit counts from here. */
  createdAt: Date;
  expiresAt: Date;
}

/**
 * A setting of the whole service, shared by every process (not an account's: no `account`).
 * `tracking-secret`: the key signing tracking links (core/content/tracking/secret.ts).
 */
export interface ServiceSettingDoc { _id: string; value: Binary; createdAt: Date }

/**
 * A webhook endpoint of an account (core/webhooks/endpoints.ts). The secret is kept in clear:
 * every request is signed with HMAC-SHA256 keyed with it, and signing needs the key itself (a
 * hash can check a secret someone presents, it cannot sign). It is shown only in the answers of
 * create and rotate-secret. `cursor`: every event of the account up to this _id has been handed
 * over (answered 2xx, or put in a retry batch); delivery reads after it.
 */
export interface WebhookDoc {
  _id: string; // `<account>:<id>`
  account: string;
  id: number;
  url: string;
  /** Track types sent; null: every type. */
  events: string[] | null;
  enabled: boolean;
  secret: string;
  cursor: ObjectId;
  created: Date;
  lastModified: Date;
}

/**
 * Events of a webhook POST that failed, waiting for their one retry (core/webhooks/retries.ts).
 * `_id` is derived from the endpoint and the batch's first and last event, so recording the same
 * failure twice (an activity run again) keeps one.
 */
export interface WebhookRetryDoc {
  _id: string;
  account: string;
  endpointId: number;
  eventIds: ObjectId[];
  dueAt: Date;
  /** Whoever runs the retry (the delivery workflow's timer or the sweeper) holds it until then. */
  leaseUntil: Date;
}

/**
 * One webhook request and what came of it: the endpoint's deliveries log (one entry per POST, and
 * one per discard of a failed batch).
 */
export interface WebhookLogDoc {
  _id: ObjectId;
  account: string;
  endpointId: number;
  at: Date;
  /**
   * delivered: answered 2xx; failed: a POST failed (its events wait for their retry, unless it was a
   * replay); discarded: the events are dropped; replayed: a replay of discarded events answered 2xx.
   */
  outcome: 'failed' | 'delivered' | 'discarded' | 'replayed';
  /** POSTs made for these events so far (1 or 2; 1 on a discard without a retry: the endpoint was disabled). */
  attempt: number;
  status: number | null;
  error: string | null;
  eventCount: number;
  trackIds: string[];
  retryAt?: Date;
  /** Set on the entry of a replay (POST …/webhooks/{id}/replay). */
  replay?: boolean;
}

/**
 * An event discarded for a webhook endpoint (its POST and the retry failed, or the endpoint was
 * disabled before the retry), until a replay delivers it or 30 days pass. `_id` is
 * `<account>:<endpointId>:<track_id>`; the event itself stays in `events` (eventId).
 */
export interface WebhookDiscardDoc {
  _id: string;
  account: string;
  endpointId: number;
  trackId: string;
  eventId: ObjectId;
  type: string;
  /** The event's own time (its `timestamp`). */
  time: string;
  discarded: Date;
}

/**
 * Events whose write landed later than webhook delivery's settle window allows (core/tracking/late-writes.ts):
 * a delivery pass may have read past their _ids before they were there, so each endpoint's pass
 * delivers those it has not (core/webhooks/late-events.ts) and adds itself to `handledBy`; a
 * record is removed once every enabled endpoint of the account has, or by the sweeper after a day
 * (10 minutes for an account without an enabled endpoint).
 */
export interface LateEventsDoc {
  _id: ObjectId;
  account: string;
  eventIds: ObjectId[];
  /** When the write was acknowledged: the events were readable by then (a pass with a longer settle window read none of them too early). */
  ackedAt: Date;
  handledBy: number[];
}

/**
 * A tracking hit on a message whose send is not recorded yet (core/tracking/held-hits.ts): answered,
 * and recorded once the message's ledger row exists. What the hit's events need beyond the row.
 */
export interface HeldHitDoc {
  _id: ObjectId;
  account: string;
  mailId: string;
  kind: 'open' | 'click' | 'online' | 'share' | 'unsubscribe';
  at: Date;
  /** The client's User-Agent and address (open, click, share). */
  hit?: { userAgent: string; ip: string };
  link?: { linkId: number; target: string; url: string; interests: string[] };
  network?: string;
  reason?: string;
}

/** Requests granted to one webhook URL in one 100 ms bucket, across every worker (core/webhooks/rate-limit.ts). */
export interface WebhookRateDoc { _id: string; n: number; expiresAt: Date }

/**
 * A worker process's lease on a relay of the relays file (adapters/relay/relay-shares.ts), renewed
 * every second: the live leases of a relay split its rate and connections among the processes,
 * and say how each process sees the relay (up, its counts since the process started).
 */
export interface RelayLeaseDoc {
  _id: string; // `<relay>:<process>`
  relay: string;
  process: string;
  expiresAt: Date;
  /** It sent through the relay since its previous renewal. */
  active: boolean;
  /** The part of the relay's rate it took (none when the relay has no rate limit). */
  ratePerSecond?: number;
  up: boolean;
  counts: { sent: number; deferred: number; failed: number; trouble: number };
}

/**
 * A one-time value of a signed request, claimed when the request is taken so the same request
 * posted again is refused (core/bounces/nonces.ts). `_id` is `<source>:<value>`; it expires once a
 * request that old is refused for its age anyway.
 */
export interface FeedbackNonceDoc { _id: string; expiresAt: Date }

/**
 * What the console shows of a feedback source (core/bounces/feedback-sources.ts), install-wide (no
 * `account`: a source serves every account): `_id` is the provider (`ses`, `sendgrid`, `mailgun`,
 * `postmark`) or `mailbox`. Never a secret. Written when a provider's webhook request was taken.
 * The bounce mailbox's reader sets `lastReadAt` at each read of the mailbox (and `lastReportAt`
 * when it took a report): noteMailboxRead.
 */
export interface FeedbackSourceDoc {
  _id: string;
  /** The last request (or mailbox message) taken, whatever it recorded. */
  lastReportAt?: Date;
  /** What that request held: its events, those recorded, those that recorded nothing. */
  lastOutcome?: { events: number; recorded: number; ignored: number };
  /** The bounce mailbox only: its last read, reports or not. */
  lastReadAt?: Date;
}

/**
 * The account's custom-triggers integration (core/triggers/integration.ts). Its address embeds two
 * random 8-hex-digit parts; only their SHA-256 is kept (`credentialHash`), so the address is shown
 * once, at activation or rotation. Deactivated: `active` false and no hash, every address refused.
 */
export interface IntegrationDoc {
  _id: string; // `<account>:customtriggers`
  account: string;
  kind: 'customtriggers';
  active: boolean;
  credentialHash: string | null;
  activated: Date | null;
  rotated: Date | null;
  deactivated: Date | null;
}

/** Events accepted from one account in one clock hour, across every API process (core/triggers/hourly-limit.ts). */
export interface TriggerUsageDoc { _id: string; n: number; expiresAt: Date }

/**
 * An accepted custom trigger event: the claim check of its TriggerAutomation workflow. `context`
 * is the client's object as one JSON string (never documents whose shape the client chose).
 * `matched`: the automations it started, fixed by the first match so a retry starts the same.
 */
export interface TriggerEventDoc {
  _id: string; // `<account>:<eventId>`
  account: string;
  eventId: string;
  key: string;
  /** The contact's address, lowercase. */
  email: string;
  context: string;
  receivedAt: Date;
  matched?: number[];
}

/** An email step: sent to the event's contact, its subject and content rendered with the event's context and contact. */
export interface AutomationEmailStep {
  type: 'email';
  subject: string;
  from: string;
  fromName: string;
  replyTo?: string;
  /** The MJML source when the step was given MJML; `html` is then its compiled HTML. */
  mjml?: string;
  html: string;
  text?: string;
}

/** A wait step: a durable timer. `duration` as given (ISO 8601, e.g. P2D, PT3H), `seconds` its length. */
export interface AutomationWaitStep { type: 'wait'; duration: string; seconds: number }

export type AutomationStep = AutomationEmailStep | AutomationWaitStep;

/** What starts an automation: only custom trigger events for now (`type` leaves room for more). */
export interface AutomationTrigger { type: 'custom'; key: string }

/** Counts of an automation's runs, kept exactly (each run counts once, whatever retries). */
export interface AutomationStats { triggered: number; completed: number; exited: number; failed: number }

/** An automation (core/automations/). */
export interface AutomationDoc {
  _id: string; // `<account>:<id>`
  account: string;
  id: number;
  name: string;
  comments: string;
  tags: string[];
  trigger: AutomationTrigger;
  steps: AutomationStep[];
  enabled: boolean;
  /** Counts activations: a run begun under an earlier one stops at its next step (deactivated while waiting). */
  activation: number;
  created: Date;
  lastModified: Date;
  activated: Date | null;
  deactivated: Date | null;
  stats: AutomationStats;
}

/** One automation run for one trigger event: the steps as they were when the event matched (a snapshot). */
export interface AutomationRunDoc {
  _id: string; // `<account>:<automationId>:<eventId>`
  account: string;
  automationId: number;
  eventId: string;
  email: string;
  /** The automation's activation the run began under. */
  activation: number;
  steps: AutomationStep[];
  state: 'running' | 'completed' | 'exited' | 'failed';
  started: Date;
  ended: Date | null;
  reason?: string;
}

/** A type's counts in a batch (core/tracking/batch-counts.ts TypeCounts). */
export interface RolledTypeCounts { events: number; messages: number; hard: number; complaints: number; unsent: number }

/**
 * What the reports count of messages whose history was pruned (core/retention/rollups.ts): a day's
 * counts (`<account>:day:<YYYY-MM-DD>`, kind day), or a campaign's or automation's batch
 * (`<account>:batch:<batch_id>`, kind batch): its types' counts (by track_type without
 * `track.mail.`), and a campaign's timeline hours and most clicked links.
 */
export interface RollupDoc {
  _id: string;
  account: string;
  kind: 'day' | 'batch';
  /** The day (YYYY-MM-DD) or the batch_id. */
  key: string;
  counts?: Record<string, number>;
  types?: Record<string, RolledTypeCounts>;
  /** By hour (`YYYY-MM-DDTHH`, UTC): sent, opened, clicked, openedT, clickedT. */
  hours?: Record<string, Record<string, number>>;
  links?: Array<{ url: string; clicks: number; uniqueClicks: number }>;
  /** The last pruning page added in: adding it again changes nothing. */
  page: string;
}

/**
 * An account's pruning (core/retention/prune-account.ts): who holds it (one pruner per account at
 * a time) and the page being removed, kept until it is gone so a pruner that stopped midway
 * finishes it (its counts added once, its events removed).
 */
export interface RetentionStateDoc {
  _id: string; // the account
  account: string;
  holder?: string;
  heldUntil?: Date;
  pending?: { page: string; ids: ObjectId[]; rollups: unknown };
  /** The last pruning that went through the whole account. */
  lastRun?: { at: Date; retainedSince: Date; events: number; requests: number };
}

export interface Store {
  client: MongoClient;
  db: Db;
  accounts: Collection<AccountDoc>;
  keys: Collection<KeyDoc>;
  users: Collection<UserDoc>;
  sessions: Collection<SessionDoc>;
  counters: Collection<CounterDoc>;
  lists: Collection<ListDoc>;
  interests: Collection<InterestDoc>;
  fields: Collection<FieldDoc>;
  contacts: Collection<ContactDoc>;
  sendRequests: Collection<SendRequestDoc>;
  sendQueue: Collection<SendQueueDoc>;
  senders: Collection<SenderDoc>;
  /** The send ledger: the outcome events of `events`, seen with their ledger fields (core/sending/ledger.ts). */
  ledger: Collection<LedgerRowDoc>;
  /** The ledger of releases before 2026-11-29, emptied into `events` at start (./ledger-migration.ts). */
  legacyMessages: Collection<LegacyMessageDoc>;
  linkTables: Collection<LinkTableDoc>;
  events: Collection<EventDoc>;
  optinConfirmations: Collection<OptinConfirmationDoc>;
  dkimKeys: Collection<DkimKeyDoc>;
  templates: Collection<TemplateDoc>;
  suppressions: Collection<SuppressionDoc>;
  idempotencyKeys: Collection<IdempotencyDoc>;
  tasks: Collection<TaskDoc>;
  serviceSettings: Collection<ServiceSettingDoc>;
  webhooks: Collection<WebhookDoc>;
  webhookRetries: Collection<WebhookRetryDoc>;
  webhookLog: Collection<WebhookLogDoc>;
  webhookDiscards: Collection<WebhookDiscardDoc>;
  webhookRate: Collection<WebhookRateDoc>;
  lateEvents: Collection<LateEventsDoc>;
  heldHits: Collection<HeldHitDoc>;
  relayLeases: Collection<RelayLeaseDoc>;
  feedbackNonces: Collection<FeedbackNonceDoc>;
  feedbackSources: Collection<FeedbackSourceDoc>;
  campaigns: Collection<CampaignDoc>;
  campaignSnapshots: Collection<CampaignSnapshotPartDoc>;
  integrations: Collection<IntegrationDoc>;
  triggerUsage: Collection<TriggerUsageDoc>;
  triggerEvents: Collection<TriggerEventDoc>;
  automations: Collection<AutomationDoc>;
  automationRuns: Collection<AutomationRunDoc>;
  migrations: Collection<MigrationDoc>;
  migrationMaps: Collection<MigrationMapDoc>;
  migrationKeys: Collection<MigrationKeyDoc>;
  rollups: Collection<RollupDoc>;
  retention: Collection<RetentionStateDoc>;
  /** Uploaded import sources and exports, in chunks, so every API and worker process reads them (see adapters/store/files.ts). */
  files: GridFSBucket;
  /** What the process keeps for this connection (adapters/store/per-store.ts). */
  scoped: Map<symbol, unknown>;
  close(): Promise<void>;
}

/**
 * Connects, and creates the indexes a real MongoDB needs (idempotent). A client whose server
 * monitoring stops is connected again (./client-watchdog.ts), told to `logger`.
 */
export async function connectStore(uri: string, fallbackDatabase: string, options: { logger?: WatchdogLogger } = {}): Promise<Store> {
  // 5 s bound each operation during an outage (the API's quick 503s); the first connect tries longer.
  const client = new MongoClient(uri, { serverSelectionTimeoutMS: 5000, connectTimeoutMS: 5000 });
  await firstConnect(() => client.connect(), {
    retryable: (error) => error instanceof MongoServerSelectionError || error instanceof MongoNetworkError,
    onRetry: (error) => options.logger?.warn({ err: error }, 'the store is not reachable yet; trying again'),
  });
  const watchdog = watchClient(client, { logger: options.logger });
  const db = client.db(databaseInUri(uri) ?? fallbackDatabase);
  const store: Store = {
    client,
    db,
    accounts: db.collection('accounts'),
    keys: db.collection('keys'),
    users: db.collection('users'),
    sessions: db.collection('sessions'),
    counters: db.collection('counters'),
    lists: db.collection('lists'),
    interests: db.collection('interests'),
    fields: db.collection('fields'),
    contacts: db.collection('contacts'),
    sendRequests: db.collection('sendRequests'),
    sendQueue: db.collection('sendQueue'),
    senders: db.collection('senders'),
    legacyMessages: db.collection('messages'),
    linkTables: db.collection('linkTables'),
    events: db.collection('events'),
    ledger: db.collection('events'),
    optinConfirmations: db.collection('optinConfirmations'),
    dkimKeys: db.collection('dkimKeys'),
    templates: db.collection('templates'),
    suppressions: db.collection('suppressions'),
    idempotencyKeys: db.collection('idempotencyKeys'),
    tasks: db.collection('tasks'),
    serviceSettings: db.collection('serviceSettings'),
    webhooks: db.collection('webhooks'),
    webhookRetries: db.collection('webhookRetries'),
    webhookLog: db.collection('webhookLog'),
    webhookDiscards: db.collection('webhookDiscards'),
    webhookRate: db.collection('webhookRate'),
    lateEvents: db.collection('lateEvents'),
    heldHits: db.collection('heldHits'),
    relayLeases: db.collection('relayLeases'),
    feedbackNonces: db.collection('feedbackNonces'),
    feedbackSources: db.collection('feedbackSources'),
    campaigns: db.collection('campaigns'),
    campaignSnapshots: db.collection('campaignSnapshots'),
    integrations: db.collection('integrations'),
    triggerUsage: db.collection('triggerUsage'),
    triggerEvents: db.collection('triggerEvents'),
    automations: db.collection('automations'),
    automationRuns: db.collection('automationRuns'),
    migrations: db.collection('migrations'),
    migrationMaps: db.collection('migrationMaps'),
    migrationKeys: db.collection('migrationKeys'),
    rollups: db.collection('rollups'),
    retention: db.collection('retention'),
    files: new GridFSBucket(db, { bucketName: 'files' }),
    scoped: new Map(),
    close: () => {
      watchdog.stop();
      stopScoped(store.scoped);
      return client.close();
    },
  };
  await ensureIndexes(store);
  return store;
}

async function ensureIndexes(store: Store): Promise<void> {
  await Promise.all([
    store.keys.createIndex({ account: 1, kind: 1 }),
    store.keys.createIndex({ account: 1, id: 1 }, { unique: true }),
    // One user per email in an account; the one user without an email is the account's first.
    store.users.createIndex({ account: 1, email: 1 }, { unique: true }),
    store.users.createIndex({ email: 1 }),
    store.sessions.createIndex({ account: 1, userId: 1 }),
    store.lists.createIndex({ account: 1, id: 1 }, { unique: true }),
    store.interests.createIndex({ account: 1, id: 1 }, { unique: true }),
    store.fields.createIndex({ account: 1, id: 1 }, { unique: true }),
    store.fields.createIndex({ account: 1, tag: 1 }, { unique: true }),
    store.contacts.createIndex({ account: 1, email: 1 }, { unique: true }),
    store.contacts.createIndex({ account: 1, id: 1 }, { unique: true }),
    store.contacts.createIndex({ account: 1, lists: 1 }),
    store.contacts.createIndex({ account: 1, 'interests.id': 1 }),
    store.sendRequests.createIndex({ account: 1, acceptedAt: 1 }),
    store.sendRequests.createIndex({ account: 1, batchId: 1 }),
    store.sendQueue.createIndex({ account: 1, _id: 1 }),
    store.events.createIndex({ track_id: 1 }, { unique: true }),
    store.events.createIndex({ account: 1, _id: 1 }),
    store.events.createIndex({ account: 1, mail_id: 1 }),
    store.optinConfirmations.createIndex({ account: 1, listId: 1, email: 1 }, { unique: true }),
    store.optinConfirmations.createIndex({ account: 1, expiresAt: 1 }),
    store.dkimKeys.createIndex({ account: 1, domain: 1 }, { unique: true }),
    store.templates.createIndex({ account: 1, id: 1 }, { unique: true }),
    store.templates.createIndex({ account: 1, location: 1, name: 1 }),
    store.tasks.createIndex({ account: 1, id: 1 }, { unique: true }),
    store.tasks.createIndex({ account: 1, created: -1 }),
    store.suppressions.createIndex({ account: 1, created: -1 }),
    store.db.collection('files.files').createIndex({ filename: 1, 'metadata.account': 1 }, { unique: true }),
    store.db.collection('files.chunks').createIndex({ files_id: 1, n: 1 }, { unique: true }),
    store.webhooks.createIndex({ account: 1, id: 1 }, { unique: true }),
    store.webhooks.createIndex({ enabled: 1 }),
    store.webhookRetries.createIndex({ dueAt: 1 }),
    store.webhookRetries.createIndex({ account: 1, endpointId: 1 }),
    store.webhookLog.createIndex({ account: 1, endpointId: 1, _id: -1 }),
    store.webhookLog.createIndex({ at: 1 }),
    store.webhookDiscards.createIndex({ account: 1, endpointId: 1, discarded: -1 }),
    store.webhookDiscards.createIndex({ discarded: 1 }),
    // Expiry on a real MongoDB; the embedded store ignores TTL indexes, so the sweeper deletes them too.
    store.webhookRate.createIndex({ expiresAt: 1 }, { expireAfterSeconds: 0 }),
    store.relayLeases.createIndex({ relay: 1, expiresAt: 1 }),
    store.campaigns.createIndex({ account: 1, id: 1 }, { unique: true }),
    store.events.createIndex({ account: 1, batch_id: 1, track_type: 1 }),
    store.triggerUsage.createIndex({ expiresAt: 1 }, { expireAfterSeconds: 0 }),
    store.feedbackNonces.createIndex({ expiresAt: 1 }, { expireAfterSeconds: 0 }),
    // The send ledger: one outcome per mail_id (the embedded store uses unique indexes only);
    // a request's messages; the bounces API's report without a mail_id goes to the address's latest.
    store.events.createIndex({ _outcome_of: 1 }, { unique: true, sparse: true }),
    store.events.createIndex({ account: 1, '_ledger.requestId': 1 }),
    store.events.createIndex({ account: 1, email: 1, '_ledger.sentAt': -1 }),
    store.automations.createIndex({ account: 1, id: 1 }, { unique: true }),
    store.automations.createIndex({ account: 1, 'trigger.key': 1 }),
    store.automationRuns.createIndex({ account: 1, automationId: 1, state: 1 }),
    store.automationRuns.createIndex({ account: 1, automationId: 1, started: -1 }),
    store.migrationMaps.createIndex({ account: 1, source: 1, kind: 1 }),
    // Retention (core/retention/): a message's events go by its send time; a day's rolled-up counts are read by range.
    store.events.createIndex({ account: 1, sent_timestamp: 1 }),
    store.rollups.createIndex({ account: 1, kind: 1, key: 1 }),
    store.idempotencyKeys.createIndex({ account: 1, created: 1 }),
    store.automationRuns.createIndex({ account: 1, ended: 1 }),
    store.triggerEvents.createIndex({ account: 1, receivedAt: 1 }),
  ]);
}

/** The database named in the URI's path, if any (works for multi-host URIs too). */
export function databaseInUri(uri: string): string | undefined {
  const match = /^mongodb(?:\+srv)?:\/\/[^/]+\/([^?]+)/.exec(uri);
  return match ? decodeURIComponent(match[1]) : undefined;
}

/** True for MongoDB's duplicate-key error (a unique index decided). */
export function isDuplicateKey(error: unknown): boolean {
  return typeof error === 'object' && error !== null && (error as { code?: unknown }).code === 11000;
}

/** Inserts the documents; one whose unique key is already stored is skipped (what a retry meets). Returns how many were inserted. */
export async function insertSkippingDuplicates<T extends Document>(collection: Collection<T>, docs: OptionalUnlessRequiredId<T>[]): Promise<number> {
  if (docs.length === 0) return 0;
  try {
    return (await collection.insertMany(docs, { ordered: false })).insertedCount;
  } catch (error) {
    const refused = refusedStatements(error);
    if (![...refused.values()].every(isDuplicateKey)) throw error;
    return docs.length - refused.size;
  }
}

/**
 * What a failed store call means for the caller: `unstorable` when the driver refused to
 * encode a value (the client sent it), `outage` for any other driver or server error (the
 * store is down, closed or refusing: retry later), undefined when it is not a store error.
 * The store's refusal of one statement of a bulk write, which the write batchers
 * (adapters/batching/turn-batch.ts) hand to that statement's caller, is one too, though the
 * driver does not make it a MongoError.
 */
export function storeFaultKind(error: unknown): 'unstorable' | 'outage' | undefined {
  if (error instanceof BSON.BSONError || error instanceof MongoInvalidArgumentError) return 'unstorable';
  if (error instanceof MongoError || isRefusedStatement(error)) return 'outage';
  return undefined;
}
