// GET /v2/{account}/automations/{id}/runs and the message stats of GET …/automations/{id}, over
// HTTP on the real stack: an automation (email, wait a day, email) fired by custom trigger events
// for two contacts; each run is listed newest first with its contact, its status and the step it
// waits at (read from the send ledger), and its Temporal workflow, which is running; the detail
// counts the messages sent. A deactivation shows the runs cancelled. A run that completed and one
// that failed (records as the engine leaves them) show their last step and their failed email.
import type { NewAccount } from '../../core/accounts/accounts';
import { automationMailId } from '../../core/automations/model';
import { startTestHerald, type TestHerald } from '../support/herald';
import { callHerald, type Json } from '../support/http';
import { waitUntil } from '../support/wait';
import { insertLedgerRows } from '../support/ledger';

let herald: TestHerald;
let acme: NewAccount;
let triggerPath: string;

const call = (method: string, path: string, json?: unknown) =>
  callHerald(herald.baseUrl, method, `/v2/${acme.account}${path}`, { json, headers: { authorization: `Bearer ${acme.apiKey}` } });
const emailStep = (subject: string) => ({ type: 'email', subject, from: 'shop@example.com', fromName: 'The shop', html: `<p>${subject}</p>` });
const ISO = expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);

beforeAll(async () => {
  herald = await startTestHerald();
  acme = await herald.newAccount();
  const activated = await call('POST', '/integrations/customtriggers/activate');
  expect(activated.status).toBe(201);
  triggerPath = new URL(activated.body.data.trigger_url).pathname;
});
afterAll(() => herald?.stop());

async function postEvent(key: string, contact: string): Promise<string> {
  const answer = await callHerald(herald.baseUrl, 'POST', triggerPath, { json: { trigger_key: key, contact, context: {} } });
  expect(answer.status).toBe(202);
  return answer.body.data.event_id;
}

it('lists the runs newest first with contact, status, the step they wait at and their workflow; a deactivation cancels them', async () => {
  const created = await call('POST', '/automations', {
    name: 'Welcome', trigger: { type: 'custom', key: 'signup' }, steps: [emailStep('Welcome'), { type: 'wait', duration: 'P1D' }, emailStep('Day two')],
  });
  const { id } = created.body.data;
  expect((await call('POST', `/automations/${id}/activate`)).status).toBe(200);
  expect((await call('GET', `/automations/${id}/runs`)).body).toMatchObject({ data: [], paging: { total: 0 } });

  const first = await postEvent('signup', 'ada@example.net');
  await waitUntil('the first run', async () => (await call('GET', `/automations/${id}/runs`)).body.paging.total === 1, 30_000);
  const second = await postEvent('signup', 'bob@example.net');
  // Each run sends its first email, then waits: the list shows them at step 1 (the wait).
  await waitUntil('both first emails sent', async () => (await call('GET', `/automations/${id}`)).body.data.messageStats.sent === 2, 60_000);
  const runs = await call('GET', `/automations/${id}/runs`);
  expect(runs.status).toBe(200);
  expect(runs.body.paging).toMatchObject({ total: 2, results: 2 });
  expect(runs.body.data).toEqual([
    { id: second, contact: 'bob@example.net', started: ISO, ended: null, status: 'running', step: 1, stepType: 'wait', steps: 3, workflowId: expect.any(String) },
    { id: first, contact: 'ada@example.net', started: ISO, ended: null, status: 'running', step: 1, stepType: 'wait', steps: 3, workflowId: expect.any(String) },
  ]);
  for (const run of runs.body.data) {
    expect((await herald.services.temporal.workflow.getHandle(run.workflowId).describe()).status.name).toBe('RUNNING');
  }
  expect((await call('GET', `/automations/${id}/runs?sortdir=asc`)).body.data.map((r: Json) => r.id)).toEqual([first, second]);
  expect((await call('GET', `/automations/${id}/runs?q=ada@*`)).body.data.map((r: Json) => r.id)).toEqual([first]);
  expect((await call('GET', `/automations/${id}/runs?filter[status]=completed`)).body.paging.total).toBe(0);
  expect((await call('GET', `/automations/${id}/runs?filter[status]=paused`)).status).toBe(400);
  const detail = (await call('GET', `/automations/${id}`)).body.data;
  expect(detail.steps.map((s: Json) => s.type)).toEqual(['email', 'wait', 'email']);
  expect(detail.messageStats).toEqual({ sent: 2, opened: 0, clicked: 0, bounced: 0, unsubscribed: 0 });
  expect(detail.stats).toMatchObject({ triggered: 2, active: 2 });

  expect((await call('POST', `/automations/${id}/deactivate`)).status).toBe(200);
  await waitUntil('the runs cancelled', async () => (await call('GET', `/automations/${id}/runs?filter[status]=cancelled`)).body.paging.total === 2, 30_000);
  const cancelled = (await call('GET', `/automations/${id}/runs`)).body.data;
  expect(cancelled.map((r: Json) => [r.status, r.step, r.ended !== null])).toEqual([['cancelled', 1, true], ['cancelled', 1, true]]);

  const stranger = await herald.newAccount();
  const theirs = await callHerald(herald.baseUrl, 'GET', `/v2/${stranger.account}/automations/${id}/runs`, { headers: { authorization: `Bearer ${stranger.apiKey}` } });
  expect(theirs.status).toBe(404);
}, 120_000);

it('shows a completed run at its last step and a failed one at the email that failed', async () => {
  const created = await call('POST', '/automations', {
    name: 'Records', trigger: { type: 'custom', key: 'never_posted' }, steps: [emailStep('One'), { type: 'wait', duration: 'PT1H' }, emailStep('Two')],
  });
  const id = Number(created.body.data.id);
  const { store } = herald.services;
  const { account } = acme;
  const steps = (await store.automations.findOne({ account, id }))!.steps;
  const run = (eventId: string, state: 'completed' | 'failed', minutesAgo: number) => ({
    _id: `${account}:${id}:${eventId}`, account, automationId: id, eventId, email: `${eventId}@example.net`, activation: 1, steps, state,
    started: new Date(Date.now() - minutesAgo * 60_000), ended: new Date(), ...(state === 'failed' ? { reason: 'the relay refused it' } : {}),
  });
  await store.automationRuns.insertMany([run('done', 'completed', 10), run('broken', 'failed', 5)]);
  // The failed run's ledger: its first email sent, the second failed.
  const row = (step: number, status: 'sent' | 'failed') => ({
    _id: automationMailId(account, id, 'broken', step), account, requestId: `automation-${id}-broken`, email: 'broken@example.net', messageId: `<m${step}@herald.test>`,
    status, relayResponse: status === 'sent' ? '250 ok' : '550 no', sentAt: new Date(), event: { track_id: `t${step}` } as never,
  });
  await insertLedgerRows(store, [row(0, 'sent'), row(2, 'failed')]);
  const runs = (await call('GET', `/automations/${id}/runs`)).body.data;
  expect(runs.map((r: Json) => [r.id, r.status, r.step, r.stepType, r.reason])).toEqual([
    ['broken', 'failed', 2, 'email', 'the relay refused it'],
    ['done', 'completed', 2, 'email', undefined],
  ]);
});
