// Workflow changes keep running workflows running: a history recorded by an earlier Herald replays
// on today's workflow code without a determinism error. The history is a finished resend round
// (CAMPAIGN_RESEND, round 1 of a 6-recipient campaign with one failed recipient) recorded on
// 2026-11-29 by the code before resend rounds walked in strides (commit 4d7664a: one page activity
// per page of the snapshot); today's code takes that path for such a history (patched
// `resend-in-strides` in workflows/campaign-launch.ts) and the new one for rounds begun after.
import fs from 'node:fs';
import path from 'node:path';
import { temporal } from '@temporalio/proto';
import { Worker } from '@temporalio/worker';
import { releaseWorkflowHooks, testWorkflowCode } from '../support/workflow-bundle';

afterAll(releaseWorkflowHooks); // the replay's, left for the whole process otherwise

const history = (name: string) => temporal.api.history.v1.History.decode(fs.readFileSync(path.join(__dirname, '..', 'fixtures', 'histories', name)));

it('replays a resend round recorded before the walk in strides', async () => {
  const recorded = history('resend-round-page-by-page.bin');
  const types = recorded.events.map((event) => event.activityTaskScheduledEventAttributes?.activityType?.name).filter(Boolean);
  expect(types).toContain('sendCampaignPage');
  expect(types).not.toContain('findResendCandidates');
  await expect(Worker.runReplayHistory(testWorkflowCode(), recorded, 'resend-before-strides')).resolves.toBeUndefined();
});
