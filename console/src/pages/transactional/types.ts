// The transactional API's shapes as the console reads them (api/account/*.ts).

/** GET /batches: a transactional send's batch. */
export interface BatchSummary {
  id: string;
  created: string;
  status: string;
  recipients: number;
  sent: number;
  delivered: number;
  bounced: number;
  dropped?: number;
  subject?: string | null;
  source?: string;
  requests?: number;
  workflowId?: string | null;
}

/** GET /batches/{id}: the batch with its messages and where its run is in Temporal. */
export interface BatchDetail extends BatchSummary {
  messages: Array<{ mail_id: string; to: string; status: string; events: Array<{ type: string; time: string }> }>;
  /** Messages with an outcome, all of them (`messages` holds the first few hundred). */
  messagesTotal?: number;
  temporal?: { namespace: string; workflowId: string; runIds?: string[]; query?: string } | null;
}

/** An event of the activity feed (view=full: every field of its type). */
export interface ActivityEvent {
  track_id: string;
  track_type: string;
  timestamp: string;
  email?: string;
  batch_id?: string;
  mail_id?: string;
  mail_type?: string;
  [field: string]: unknown;
}

export interface Suppression { email: string; reason: string; created: string; source?: string | null }

export interface TransactionalKey { id: number; hint: string; created: string }

export interface DkimKey {
  id: number;
  domain: string;
  selector: string;
  publicKey: string;
  dnsRecord: { name: string; type: string; value: string };
  created: string;
}

export { TRACK_TYPES } from '../../../../core/tracking/track-types';
