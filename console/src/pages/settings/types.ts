// The shapes the settings pages read from the API (api/account/webhooks.ts, users.ts).

export interface Endpoint { id: number; url: string; events: string[]; enabled: boolean; secret?: string }

export interface Delivery {
  id: string; time: string; outcome: string; attempt: number; status: number | null; error: string | null; events: number;
  retry_at?: string; replay?: boolean;
}

export interface Discarded { track_id: string; type: string; time: string; discarded: string; payload: unknown }

export interface ReplayResult { delivered: boolean; status: number | null; error: string | null; events: number }

export interface User { id: number; email: string | null; username: string; permissions: string[]; created: string; lastModified: string }

export interface UserKey { id: number; hint: string; created: string }

/** GET /v2/{account}/relays (api/account/relays.ts). */
export type RelayState = 'up' | 'down' | 'partly down' | 'unknown';
export interface RelayCounts { sent: number; deferred: number; failed: number; trouble: number }
export interface Relay {
  name: string;
  conditions: { streams?: string[]; accounts?: string[]; senderDomains?: string[]; recipientDomains?: string[] };
  ratePerSecond?: number;
  maxConnections: number;
  host: string;
  state: RelayState;
  counts: RelayCounts;
  workers: number;
}
export interface FeedbackSource {
  provider: 'ses' | 'sendgrid' | 'mailgun' | 'postmark';
  configured: boolean;
  url: string;
  lastReportAt: string | null;
  lastOutcome: { events: number; recorded: number; ignored: number } | null;
}
export interface BounceMailbox { configured: boolean; host: string | null; lastReadAt: string | null; lastReportAt: string | null }
export interface RelaysOverview { relays: Relay[]; feedback: FeedbackSource[]; mailbox: BounceMailbox }
