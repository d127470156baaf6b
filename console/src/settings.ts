// What the server tells the console about its setup (api/console/router.ts fills the meta tag):
// where the Temporal UI is, for links to a batch's or campaign's workflow runs.
export interface ConsoleSettings { temporalUi: string | null; namespace: string }

function read(): ConsoleSettings {
  const raw = document.querySelector('meta[name="herald-settings"]')?.getAttribute('content');
  try {
    return { temporalUi: null, namespace: 'default', ...(raw ? JSON.parse(raw) : {}) };
  } catch {
    return { temporalUi: null, namespace: 'default' };
  }
}

export const settings = read();

/** The Temporal UI's page of a workflow, or null when no Temporal UI is configured. */
export function temporalWorkflowUrl(workflowId: string, runId?: string): string | null {
  if (!settings.temporalUi) return null;
  const run = runId ? `/${encodeURIComponent(runId)}` : '';
  return `${settings.temporalUi.replace(/\/$/, '')}/namespaces/${encodeURIComponent(settings.namespace)}/workflows/${encodeURIComponent(workflowId)}${run}`;
}
