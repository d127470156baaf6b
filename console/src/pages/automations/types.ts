// The shapes the automation pages read (core/automations/views.ts; the runs: GET …/automations/{id}/runs).

export interface AutomationStats { triggered: number; exited: number; failed: number; active: number; completed: number }

export interface Automation {
  id: string; name: string; comments: string; trigger: { type: string; key: string }; enabled: boolean; tags: string[];
  stats: AutomationStats; created: string; lastModified: string;
}

export type Step =
  | { type: 'email'; subject: string; from: string; fromName?: string; replyTo?: string; html?: string; mjml?: string; text?: string }
  | { type: 'wait'; duration: string; seconds: number };

export interface AutomationDetail extends Automation {
  steps: Step[]; activation: number; activated: string | null; deactivated: string | null;
  messageStats?: { sent: number; opened: number; clicked: number; bounced: number; unsubscribed: number };
}

export interface Run {
  id: string; contact: string; started: string; ended: string | null; status: string;
  /** Index of the step it is at (0-based), of `steps`. */
  step: number | null; stepType?: 'email' | 'wait'; steps?: number; reason?: string | null; workflowId: string;
}
