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
}

export interface Run { id: string; contact: string; started: string; status: string; step: number | null; workflowId: string }
