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
