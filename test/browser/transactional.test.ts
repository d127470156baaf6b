// The overview and the transactional pages in a real browser, against the real stack: a send over
// HTTP found in the activity feed by batch and by email (its every field in the detail) and counted
// on the overview; a transactional key shown once then revoked (and refused from then on); a DKIM
// key's DNS record; a suppression added, found and removed; a user lacking the permissions sees
// the data with the controls disabled.
import { expect } from '@playwright/test';
import type { Browser, Page } from 'playwright-core';
import type { NewAccount } from '../../core/accounts/accounts';
import { startTestHerald, type TestHerald } from '../support/herald';
import { connectBrowser, consoleUser, newConsolePage, checkPage, signIn } from '../support/browser';
import { waitUntil } from '../support/wait';
import { ledgerRowOf } from '../support/ledger';

let herald: TestHerald;
let browser: Browser;
let account: NewAccount;
let user: { email: string; password: string };

beforeAll(async () => {
  // A Temporal UI address, for the batch page's link to its run (read when Herald is composed).
  [herald, browser] = await Promise.all([startTestHerald({ env: { HERALD_TEMPORAL_UI_URL: 'http://temporal-ui.test:8233' } }), connectBrowser()]);
  account = await herald.newAccount();
  user = await consoleUser(herald.services.store, account.account);
});

afterAll(async () => {
  await browser?.close();
  await herald?.stop();
});

function send(to: string | string[], key = account.transactionalKey) {
  return fetch(`${herald.baseUrl}/v1/mail/send`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
    body: JSON.stringify({
      from: { email: 'shop@example.com', name: 'The Shop' },
      subject: 'Your order',
      content: { html: '<html><body><p>Thanks!</p></body></html>', text: 'Thanks!' },
      recipients: [to].flat().map((email) => ({ to: { email, name: 'Ada' } })),
    }),
  });
}

/** A GET of the account API with the account's key: its answer's data. */
async function apiData<T>(path: string): Promise<T> {
  const response = await fetch(`${herald.baseUrl}/v2/${account.account}${path}`, { headers: { authorization: `Bearer ${account.apiKey}` } });
  return ((await response.json()) as { data: T }).data;
}

/** The rows of the page's first table whose text contains `text`. */
const rowsWith = (page: Page, text: string) => page.locator('tbody tr').filter({ hasText: text });

test('a send over HTTP: its events in the feed by batch and by email, an event\'s every field, and the overview\'s count', async () => {
  const response = await send('ada@example.net');
  expect(response.status).toBe(202);
  const batch = response.headers.get('herald-batch-id')!;
  // Another send, so each filter has something to leave out.
  expect((await send('bob@example.net')).status).toBe(202);
  await herald.sink.waitFor(2);
  const { store } = herald.services;
  await waitUntil('both sent events', async () => (await store.events.countDocuments({ account: account.account, track_type: 'track.mail.sent' })) === 2);

  const { page, problems, close } = await newConsolePage(browser);
  await signIn(page, herald.baseUrl, user.email, user.password, '/console/activity');
  await expect(rowsWith(page, 'example.net')).toHaveCount(2);

  await page.getByLabel('Batch').fill(batch);
  await page.getByRole('button', { name: 'Filter' }).click();
  await expect(rowsWith(page, 'example.net')).toHaveCount(1);
  await expect(rowsWith(page, 'ada@example.net')).toHaveCount(1);
  expect(new URL(page.url()).searchParams.get('batch')).toBe(batch); // kept in the address
  await checkPage(page, 'activity');

  await page.getByRole('button', { name: 'Details of track.mail.sent for ada@example.net' }).click();
  const event = await store.events.findOne({ account: account.account, email: 'ada@example.net' });
  const detail = page.getByRole('region', { name: `Event ${event!.track_id}` });
  await expect(detail).toBeVisible();
  await expect(detail.getByRole('heading', { level: 2 })).toBeFocused();
  const json = JSON.parse((await detail.locator('pre').textContent())!);
  expect(json).toMatchObject({ track_id: event!.track_id, batch_id: batch, mail_id: event!.mail_id, email: 'ada@example.net', mta: 'herald.test' });
  await expect(detail.locator('dt', { hasText: 'mail_id' })).toBeVisible();
  await checkPage(page, 'event');

  // By email, after a reload: the filters come back from the address.
  await page.getByLabel('Batch').fill('');
  await page.getByLabel('Recipient email').fill('BOB@example.net');
  await page.getByRole('button', { name: 'Filter' }).click();
  await page.reload();
  await expect(page.getByLabel('Recipient email')).toHaveValue('BOB@example.net');
  await expect(rowsWith(page, 'example.net')).toHaveCount(1);
  await expect(rowsWith(page, 'bob@example.net')).toHaveCount(1);
  await page.getByLabel('Type').selectOption('track.mail.bounced');
  await page.getByRole('button', { name: 'Filter' }).click();
  await expect(page.getByText('No events match these filters.')).toBeVisible();

  // The overview counts today's two sends, in the tiles and in the day's row.
  await page.getByRole('link', { name: 'Overview' }).click();
  const tile = (label: string) => page.locator('.stat').filter({ has: page.locator('dt', { hasText: new RegExp(`^${label}$`) }) }).locator('dd');
  await expect(tile('Sent')).toHaveText('2');
  await expect(page.locator('.chart canvas')).toHaveCount(2);
  const today = new Date().toISOString().slice(0, 10);
  await expect(page.locator(`tbody tr:has(time[datetime="${today}"]) td`).nth(1)).toHaveText('2');
  const latest = page.getByRole('table', { name: 'Latest transactional batches' });
  await expect(latest.getByRole('link', { name: 'Your order' })).toHaveCount(2);
  await checkPage(page, 'overview');
  // A chosen range is kept in the address; a range without today counts nothing.
  await page.getByLabel('From').fill('2020-01-01');
  await page.getByLabel('To', { exact: true }).fill('2020-01-31');
  await page.getByRole('button', { name: 'Show' }).click();
  await expect(tile('Sent')).toHaveText('0');
  await page.reload();
  await expect(page.getByLabel('From')).toHaveValue('2020-01-01');
  await expect(tile('Sent')).toHaveText('0');

  // The batch: its message and outcome, its events, and its run in the Temporal UI.
  await page.getByRole('link', { name: 'Batches', exact: true }).click();
  await page.getByRole('link', { name: batch }).click();
  await expect(page.getByRole('heading', { name: `Batch ${batch}` })).toBeVisible();
  const message = rowsWith(page, 'ada@example.net');
  await expect(message).toHaveCount(1);
  await expect(message).toContainText('sent');
  // The link goes to the run that sent it, which its ledger row names.
  const row = await ledgerRowOf(herald.services.store, { account: account.account, email: 'ada@example.net' });
  const run = page.getByRole('link', { name: /in the Temporal UI/ });
  await expect(run).toHaveAttribute(
    'href', `http://temporal-ui.test:8233/namespaces/${process.env.TEMPORAL_NAMESPACE ?? 'default'}/workflows/sender-${account.account}/${row!.sentBy!.runId}`,
  );
  await checkPage(page, 'batch');
  expect(problems).toEqual([]);
  await close();
});

test('the feed pages through the API\'s cursors, older and back to newer', async () => {
  const other = await herald.newAccount();
  const reader = await consoleUser(herald.services.store, other.account, ['activity:list']);
  // One page (25) and one more: the second page holds the oldest event alone.
  const recipients = Array.from({ length: 26 }, (_, i) => `r${i}@example.com`);
  const before = herald.sink.received.length;
  expect((await send(recipients, other.transactionalKey)).status).toBe(202);
  await herald.sink.waitFor(before + 26);
  const { store } = herald.services;
  await waitUntil('26 sent events', async () => (await store.events.countDocuments({ account: other.account })) === 26);
  // The feed's order is the order events were stored in (_id), not their timestamps (sends run in parallel).
  const oldest = (await store.events.find({ account: other.account }).sort({ _id: 1 }).limit(1).toArray())[0];

  const { page, problems, close } = await newConsolePage(browser);
  await signIn(page, herald.baseUrl, reader.email, reader.password, '/console/activity');
  await expect(page.getByText('26 events match')).toBeVisible();
  await expect(page.locator('tbody tr')).toHaveCount(25);
  await expect(page.getByRole('button', { name: 'Newer' })).toBeDisabled();
  await page.getByRole('button', { name: 'Older' }).click();
  await expect(page.locator('tbody tr')).toHaveCount(1);
  await expect(page.locator('tbody tr')).toContainText(oldest.email);
  await expect(page.getByRole('button', { name: 'Older' })).toBeDisabled();
  await page.getByRole('button', { name: 'Newer' }).click();
  await expect(page.locator('tbody tr')).toHaveCount(25);
  expect(problems).toEqual([]);
  await close();
});

test('a new transactional key is shown once and works until revoked; a DKIM key shows the record to publish', async () => {
  const { page, problems, close } = await newConsolePage(browser);
  page.on('dialog', (dialog) => void dialog.accept());
  await signIn(page, herald.baseUrl, user.email, user.password, '/console/sending');
  await page.getByRole('button', { name: 'New key' }).click();
  const secret = page.locator('.secret-value');
  await expect(secret).toBeVisible();
  const key = (await secret.textContent())!;
  expect((await send('carol@example.net', key)).status).toBe(202);

  await page.getByLabel('Domain').fill('mail.example.com');
  await page.getByRole('button', { name: 'Add a key' }).click();
  const value = page.getByLabel('DNS TXT record value for mail.example.com');
  await expect(value).toHaveValue(/^v=DKIM1; k=rsa; p=[A-Za-z0-9+/=]+$/);
  await expect(page.getByLabel('DNS record name (TXT) for mail.example.com')).toHaveValue('herald._domainkey.mail.example.com');
  await checkPage(page, 'sending');

  const keys = await apiData<Array<{ hint: string }>>('/integrations/transactional/keys');
  const issued = keys.find((k) => key.startsWith(k.hint.replace(/…$/, '')));
  if (!issued) throw new Error(`no key listed for ${key.slice(0, 8)}…`);
  await page.getByRole('button', { name: `Revoke key ${issued.hint}` }).click();
  await expect(page.getByText(`The key ${issued.hint} is revoked.`)).toBeVisible();
  await expect(secret).toHaveCount(0);
  await expect(page.getByRole('button', { name: `Revoke key ${issued.hint}` })).toHaveCount(0);
  expect((await send('carol@example.net', key)).status).toBe(401);
  expect(problems).toEqual([]);
  await close();
});

test('a suppression is added, found by search and removed; a user without the permission sees the list but cannot change it', async () => {
  const { page, problems, close } = await newConsolePage(browser);
  page.on('dialog', (dialog) => void dialog.accept());
  await signIn(page, herald.baseUrl, user.email, user.password, '/console/suppressions');
  // The API's refusal shows beside the field.
  await page.getByLabel('Email').fill('not an address');
  await page.getByRole('button', { name: 'Add' }).click();
  await expect(page.locator('.field-error')).toBeVisible();
  for (const email of ['blocked@example.org', 'other@example.org']) {
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Reason').selectOption('complained');
    await page.getByRole('button', { name: 'Add' }).click();
    await expect(page.getByText(`${email} is on the list`)).toBeVisible();
  }
  await page.getByLabel('Address contains').fill('BLOCKED');
  await page.getByRole('button', { name: 'Search' }).click();
  await expect(rowsWith(page, 'example.org')).toHaveCount(1);
  await expect(rowsWith(page, 'blocked@example.org')).toContainText('complained');
  expect(new URL(page.url()).searchParams.get('q')).toBe('BLOCKED');
  await checkPage(page, 'suppressions');

  // Someone who may only read: the list, with the controls disabled.
  const reader = await consoleUser(herald.services.store, account.account, ['contacts:list', 'account:list', 'activity:list']);
  const other = await newConsolePage(browser);
  await signIn(other.page, herald.baseUrl, reader.email, reader.password, '/console/suppressions');
  await expect(rowsWith(other.page, 'blocked@example.org')).toHaveCount(1);
  await expect(other.page.getByRole('button', { name: 'Remove blocked@example.org' })).toBeDisabled();
  await expect(other.page.getByRole('button', { name: 'Add' })).toBeDisabled();
  await other.page.goto(`${herald.baseUrl}/console/sending`);
  await expect(other.page.getByRole('button', { name: 'New key' })).toBeDisabled();
  await expect(other.page.getByRole('button', { name: 'Add a key' })).toBeDisabled();
  expect(other.problems).toEqual([]);
  await other.close();

  await page.getByRole('button', { name: 'Remove blocked@example.org' }).click();
  await expect(page.getByText('blocked@example.org was taken off the list')).toBeVisible();
  await expect(page.getByText('No suppressed address matches.')).toBeVisible();
  const left = await apiData<Array<{ email: string }>>('/suppressions');
  expect(left.map((s) => s.email)).toEqual(['other@example.org']);
  expect(problems).toEqual([]);
  await close();
});
