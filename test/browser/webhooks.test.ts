// Webhooks in the console, in a real browser against the real stack: an endpoint created in the
// form (its secret shown once) whose receiver answers 500 — its POST and retry (shortened to a
// second) fail and the events appear as discarded, the delivery log shows each request's answer;
// once the receiver is fixed, the chosen events are replayed from the page and arrive in one
// request signed with the secret the page showed.
import { expect } from '@playwright/test';
import type { Browser } from 'playwright-core';
import { verifySignature } from '../../core/webhooks/signature';
import { startTestHerald, type TestHerald } from '../support/herald';
import { connectBrowser, consoleUser, newConsolePage, checkPage, signIn } from '../support/browser';
import { storeSyntheticEvents } from '../support/webhook-events';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver';

let herald: TestHerald;
let browser: Browser;
let receiver: WebhookReceiver;
let account: string;
let apiKey: string;

beforeAll(async () => {
  [herald, browser, receiver] = await Promise.all([
    startTestHerald({ webhookTuning: { retryDelayMs: 1000, settleMs: 1000, idlePollMs: 200 } }),
    connectBrowser(),
    startWebhookReceiver(),
  ]);
  ({ account, apiKey } = await herald.newAccount());
});

afterAll(async () => {
  await browser?.close();
  await herald?.stop();
  await receiver?.close();
});

test('a webhook endpoint that answers 500: its discarded events appear, and after the receiver is fixed the replay delivers them, signed', async () => {
  let broken = true;
  receiver.answer = () => (broken ? 500 : 200);
  const user = await consoleUser(herald.services.store, account);
  const { page, problems, close } = await newConsolePage(browser);
  await signIn(page, herald.baseUrl, user.email, user.password, '/console/webhooks');

  // Create it in the form: only two event types; the secret is shown once.
  await page.getByLabel('URL').fill(receiver.url);
  for (const type of ['track.mail.dropped', 'track.mail.sent', 'track.mail.bounced', 'track.mail.first_opened', 'track.mail.first_clicked',
    'track.mail.unsubscribed', 'track.mail.viewed_online', 'track.mail.shared']) {
    await page.getByLabel(type, { exact: true }).uncheck();
  }
  await page.getByRole('button', { name: 'Create endpoint' }).click();
  const secret = (await page.locator('.secret-value').textContent())!;
  expect(secret.length).toBeGreaterThan(20);
  await expect(page.getByRole('table', { name: 'Webhook endpoints' })).toContainText('2 of 10 types');
  await checkPage(page, 'webhooks');

  const trackIds = await storeSyntheticEvents(herald.services.store, account, 3, ['track.mail.opened', 'track.mail.clicked']);
  await page.getByRole('table', { name: 'Webhook endpoints' }).getByRole('link', { name: receiver.url }).click();
  await expect(page.getByRole('heading', { name: /^Webhook \d+$/ })).toBeVisible();
  await expect(page.locator('.secret-value')).toHaveCount(0); // not shown again

  // The POST and its retry fail: the events are discarded (the page refreshed until they show).
  const discarded = page.getByRole('table', { name: /Discarded events/ });
  await expect(async () => {
    await page.getByRole('button', { name: 'Refresh', exact: true }).click();
    await expect(discarded.getByRole('row')).toHaveCount(4, { timeout: 1000 });
  }).toPass({ timeout: 30_000 });
  expect(receiver.requests.map((r) => r.headers['herald-attempt'])).toEqual(['1', '2']);
  await page.getByRole('button', { name: 'Refresh log' }).click();
  const log = page.getByRole('table', { name: /Requests made to the endpoint/ });
  // Newest first: the retry's discard, then the first POST's failure; each with its answer and event count.
  await expect(log.getByRole('row').nth(1).getByRole('cell')).toHaveText([/^\d{4}-/, 'Discarded', '2', 'HTTP 500: refused by the test', '3']);
  await expect(log.getByRole('row').nth(2).getByRole('cell')).toHaveText([/^\d{4}-/, 'Failed', '1', 'HTTP 500: refused by the test', '3']);

  // Two chosen, then all on the page; the receiver fixed; the replay delivers them in one request.
  await page.getByLabel(`Choose ${trackIds[0]}`).check();
  await expect(page.getByRole('button', { name: 'Replay chosen events (1)' })).toBeEnabled();
  await page.getByLabel('Choose all on this page').check();
  await checkPage(page, 'webhook');
  broken = false;
  await page.getByRole('button', { name: 'Replay chosen events (3)' }).click();
  await expect(page.getByRole('status').filter({ hasText: 'Replayed 3 events: delivered (HTTP 200).' })).toBeVisible();
  await expect(page.getByText('No discarded events.')).toBeVisible();
  await expect(log.getByRole('row').nth(1)).toContainText('Replayed (replay)');

  const replay = receiver.requests.at(-1)!;
  expect(receiver.requests).toHaveLength(3);
  expect(replay.headers['herald-attempt']).toBe('replay');
  expect(verifySignature(secret, replay.rawBody, replay.headers['herald-signature'] as string)).toBe(true);
  expect(replay.events.map((e: { track_id: string }) => e.track_id).sort()).toEqual([...trackIds].sort());
  expect(problems).toEqual([]);
  await close();
}, 60_000);

test('an endpoint changed, disabled and enabled, its secret rotated (shown once), then deleted', async () => {
  const user = await consoleUser(herald.services.store, account);
  const created = await fetch(`${herald.baseUrl}/v2/${account}/webhooks`, {
    method: 'POST', headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' }, body: JSON.stringify({ url: `${receiver.url}?second` }),
  });
  const { id, secret: first } = ((await created.json()) as { data: { id: number; secret: string } }).data;
  const { page, problems, close } = await newConsolePage(browser);
  page.on('dialog', (dialog) => void dialog.accept());
  await signIn(page, herald.baseUrl, user.email, user.password, `/console/webhooks/${id}`);

  // The API's refusal lands beside the URL field.
  await page.getByLabel('URL').fill('ftp://example.com/hooks');
  await page.getByRole('button', { name: 'Save changes' }).click();
  await expect(page.getByLabel('URL')).toHaveAttribute('aria-invalid', 'true');
  await page.getByLabel('URL').fill(`${receiver.url}?changed`);
  await page.getByRole('button', { name: 'Save changes' }).click();
  await expect(page.getByText('Saved.')).toBeVisible();
  await expect(page.locator('.details')).toContainText(`${receiver.url}?changed`);

  await page.getByRole('button', { name: 'Disable' }).click();
  await expect(page.locator('.details')).toContainText('Disabled');
  await page.getByRole('button', { name: 'Enable' }).click();
  await expect(page.locator('.details')).toContainText('Enabled');

  await page.getByRole('button', { name: 'Rotate secret' }).click();
  const rotated = (await page.locator('.secret-value').textContent())!;
  expect(rotated.length).toBeGreaterThan(20);
  expect(rotated).not.toBe(first);

  await page.getByRole('button', { name: 'Delete' }).click();
  await expect(page).toHaveURL(/\/console\/webhooks$/);
  await expect(page.getByRole('table', { name: 'Webhook endpoints' })).not.toContainText('?changed');
  const gone = await fetch(`${herald.baseUrl}/v2/${account}/webhooks/${id}`, { headers: { authorization: `Bearer ${apiKey}` } });
  expect(gone.status).toBe(404);
  expect(problems).toEqual([]);
  await close();
}, 30_000);
