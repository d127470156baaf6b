// How automations look in answers. The row is the original's listing shape (id as a string,
// `options.types`, the eight stats); the detail adds the steps and the activation's record.
// Dates are ISO 8601 UTC. An MJML step shows its MJML, not the HTML compiled from it, so a
// client can send a step back as it read it.
import type { AutomationDoc, AutomationStep } from '../../adapters/store/store';
import type { AutomationFields } from './input';

const iso = (date: Date | null) => (date ? date.toISOString() : null);

/**
 * The original's eight counts. `active`: runs started and not ended. Herald has no goals or
 * purchases, and a run that stops early is `exited`: aborted, converted and converted_amount stay 0.
 */
export function statsView(stats: AutomationDoc['stats']) {
  const active = Math.max(0, stats.triggered - stats.completed - stats.exited - stats.failed);
  return {
    triggered: stats.triggered, exited: stats.exited, failed: stats.failed, active, aborted: 0,
    completed: stats.completed, converted: 0, converted_amount: 0,
  };
}

export function stepView(step: AutomationStep) {
  if (step.type === 'wait') return { type: step.type, duration: step.duration, seconds: step.seconds };
  const { mjml, html, ...rest } = step;
  return { ...rest, ...(mjml !== undefined ? { mjml } : { html }) };
}

/** A row of the listing. */
export function automationRow(automation: AutomationDoc) {
  return {
    id: String(automation.id), name: automation.name, comments: automation.comments,
    trigger: { type: automation.trigger.type, key: automation.trigger.key }, enabled: automation.enabled, tags: automation.tags,
    options: { types: [automation.trigger.type] }, stats: statsView(automation.stats),
    created: iso(automation.created), lastModified: iso(automation.lastModified),
  };
}

/** The whole automation: the row, its steps, and its activation counter and dates. */
export function automationDetail(automation: AutomationDoc) {
  return {
    ...automationRow(automation),
    steps: automation.steps.map(stepView),
    activation: automation.activation, activated: iso(automation.activated), deactivated: iso(automation.deactivated),
  };
}

/** A PUT's answer: the id and what changed, each as the detail shows it. */
export function automationChangesView(id: number, changes: Partial<AutomationFields>) {
  const { steps, ...rest } = changes;
  return { id: String(id), ...rest, ...(steps ? { steps: steps.map(stepView) } : {}) };
}
