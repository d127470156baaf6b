// Every workflow the worker registers.
export { AccountSender } from './account-sender';
export { ScheduledSend } from './scheduled-send';
export { SendQueueSweep } from './send-queue-sweep';
export { ContactExport } from './contact-export';
export { ContactImport } from './contact-import';
export { AccountMigration } from './account-migration';
export { WebhookDelivery } from './webhook-delivery';
export { WebhookSweep } from './webhook-sweep';
export { RetentionSweep } from './retention-sweep';
export { TaskSweep } from './task-sweep';
export { BounceMailboxRead } from './bounce-mailbox-read';
export { CampaignLaunch } from './campaign-launch';
export { TriggerAutomation, AutomationRun } from './trigger-automation';
