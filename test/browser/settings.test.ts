// Users, API keys, permissions and automations in the console, in a real browser against the real
// stack: a user lacking permissions sees the data with its controls disabled and is refused by the
// API itself; a user created with a permission checklist, changed, given an API key shown once and
// working, the key revoked and refused, the user deleted; automations listed with their counts,
// an automation's steps and its run, deactivated and activated again; an account moved in from
// another (a migration started, watched to its report, its id mapping downloaded; a refused key).
import { expect } from '@playwright/test';
import type { Browser, Page } from 'playwright-core';
import { startTestHerald, type TestHerald } from '../support/herald';
import { callHerald } from '../support/http';
import { connectBrowser, consoleUser, newConsolePage, checkPage, signIn } from '../support/browser';

let herald: TestHerald;
let browser: Browser;
let account: string;
let apiKey: string;
let admin: { email: string; password: string };

const call = (method: string, path: string, json?: unknown, key = apiKey) =>
  callHerald(herald.baseUrl, method, `/v2/${account}${path}`, { json, headers: { authorization: `Bearer ${key}` } });

beforeAll(async () => {
  [herald, browser] = await Promise.all([startTestHerald(), connectBrowser()]);
  ({ account, apiKey } = await herald.newAccount());
  admin = await consoleUser(herald.services.store, account);
});

afterAll(async () => {
  await browser?.close();
  await herald?.stop();
});

/** Accepts every confirm() the page asks (delete, revoke, deactivate). */
const acceptDialogs = (page: Page) => page.on('dialog', (dialog) => void dialog.accept());

test('a user without a permission cannot change what it lacks', async () => {
  const created = await call('POST', '/webhooks', { url: 'http://127.0.0.1:9/hooks', events: ['track.mail.opened'] });
  expect(created.status).toBe(201);
  const reader = await consoleUser(herald.services.store, account, ['webhooks:list', 'campaigns:list']);
  const { page, problems, close } = await newConsolePage(browser);
  await signIn(page, herald.baseUrl, reader.email, reader.password, '/console/webhooks');

  // It sees the endpoints, but not how to add one.
  await expect(page.getByRole('table', { name: 'Webhook endpoints' })).toContainText('http://127.0.0.1:9/hooks');
  await expect(page.getByRole('button', { name: 'Create endpoint' })).toBeDisabled();
  await expect(page.getByLabel('URL')).toBeDisabled();
  await page.getByRole('link', { name: 'http://127.0.0.1:9/hooks' }).click();
  for (const name of ['Disable', 'Rotate secret', 'Delete', 'Save changes', 'Replay chosen events (0)']) {
    await expect(page.getByRole('button', { name, exact: true })).toBeDisabled();
  }
  await expect(page.getByRole('button', { name: 'Rotate secret' })).toHaveAttribute('title', /webhooks:update/);
  await expect(page.getByRole('button', { name: 'Delete' })).toHaveAttribute('title', /webhooks:delete/);

  // The API refuses its session too: the console's controls are a courtesy, the API is the check.
  const stored = await page.evaluate(() => (globalThis as unknown as { sessionStorage: { getItem(key: string): string } }).sessionStorage.getItem('herald.session'));
  const token = (JSON.parse(stored) as { token: string }).token;
  const headers = { 'X-Auth-Token': token, 'Content-Type': 'application/json' };
  const rotate = await fetch(`${herald.baseUrl}/v2/${account}/webhooks/${created.body.data.id}/rotate-secret`, { method: 'POST', headers });
  expect(rotate.status).toBe(403);
  const create = await fetch(`${herald.baseUrl}/v2/${account}/webhooks`, { method: 'POST', headers, body: JSON.stringify({ url: 'http://127.0.0.1:9/x' }) });
  expect([create.status, ((await create.json()) as { error: { userMessage: string } }).error.userMessage]).toEqual([403, 'Missing permission webhooks:create']);

  // A page whose data it may not read says so, with the API's message.
  await page.getByRole('link', { name: 'Users and API keys' }).click();
  await expect(page.getByRole('alert')).toHaveText('Missing permission users:list');
  await expect(page.getByRole('button', { name: 'Add user' })).toBeDisabled();
  expect(problems).toEqual([]);
  await close();
}, 30_000);

test('a user created with its permissions, changed, given an API key shown once, the key revoked, the user deleted', async () => {
  const { page, problems, close } = await newConsolePage(browser);
  acceptDialogs(page);
  await signIn(page, herald.baseUrl, admin.email, admin.password, '/console/users');
  await page.getByLabel('Email').fill('writer@example.com');
  await page.getByLabel('Password', { exact: true }).fill('short');
  await page.getByLabel('contacts:list').check();
  await page.getByLabel('lists:list').check();
  await page.getByRole('button', { name: 'Add user' }).click();
  // The API's message, beside the field it names.
  await expect(page.getByLabel('Password', { exact: true })).toHaveAttribute('aria-invalid', 'true');
  await expect(page.getByRole('alert')).toHaveText(/8/);
  await page.getByLabel('Password', { exact: true }).fill('a-long-password');
  await page.getByRole('button', { name: 'Add user' }).click();
  const users = page.getByRole('table', { name: 'Users of the account' });
  await expect(users.getByRole('row', { name: /writer@example.com/ })).toContainText('contacts:list, lists:list');
  await page.getByRole('heading', { name: 'Users and API keys' }).scrollIntoViewIfNeeded(); // the list, not the form the test filled
  await checkPage(page, 'users');

  await users.getByRole('link', { name: 'writer@example.com' }).click();
  await expect(page.getByLabel('contacts:list')).toBeChecked();
  await page.getByLabel('webhooks:list').check();
  await page.getByRole('button', { name: 'Save permissions' }).click();
  await expect(page.getByText('Permissions saved.')).toBeVisible();
  const id = /\/users\/(\d+)$/.exec(page.url())![1];
  expect((await call('GET', `/users/${id}`)).body.data.permissions).toEqual(['contacts:list', 'lists:list', 'webhooks:list']);

  await page.getByRole('button', { name: 'New API key' }).click();
  const key = (await page.locator('.secret-value').textContent())!;
  expect((await call('GET', '/contacts', undefined, key)).status).toBe(200);
  const keys = page.getByRole('table', { name: 'API keys of the user' });
  await expect(keys.getByRole('row')).toHaveCount(2);
  await page.reload();
  await expect(page.locator('.secret-value')).toHaveCount(0); // shown once
  await keys.getByRole('button', { name: /^Revoke / }).click();
  await expect(page.getByText('No API keys.')).toBeVisible();
  expect((await call('GET', '/contacts', undefined, key)).status).toBe(401);

  await page.getByRole('button', { name: 'Delete user' }).click();
  await expect(page).toHaveURL(/\/console\/users$/);
  await expect(users).not.toContainText('writer@example.com');
  expect((await call('GET', `/users/${id}`)).status).toBe(404);
  expect(problems).toEqual([]);
  await close();
}, 30_000);

test('automations: the list with their runs, an automation\'s steps and runs, deactivated and activated again', async () => {
  const activated = await call('POST', '/integrations/customtriggers/activate');
  const triggerPath = new URL(activated.body.data.trigger_url).pathname;
  const email = (subject: string) => ({ type: 'email', subject, from: 'shop@example.com', fromName: 'The shop', html: `<p>${subject}</p>` });
  const created = await call('POST', '/automations', {
    name: 'Welcome', trigger: { type: 'custom', key: 'signup' }, steps: [email('Welcome aboard'), { type: 'wait', duration: 'P1D' }, email('Day two')],
  });
  await call('POST', '/automations', { name: 'Dormant', trigger: { type: 'custom', key: 'other' }, steps: [email('Hi')] });
  const { id } = created.body.data;
  expect((await call('POST', `/automations/${id}/activate`)).status).toBe(200);
  expect((await callHerald(herald.baseUrl, 'POST', triggerPath, { json: { trigger_key: 'signup', contact: 'ada@example.net' } })).status).toBe(202);

  const { page, problems, close } = await newConsolePage(browser);
  acceptDialogs(page);
  await signIn(page, herald.baseUrl, admin.email, admin.password, '/console/automations');
  const table = page.getByRole('table', { name: 'Automations with their runs' });
  await expect(table.getByRole('row', { name: /Welcome/ }).getByRole('cell')).toHaveText(['Welcome', 'signup', 'Active', '1', '1', '0', '0', '0', 'Deactivate Welcome']);
  await page.getByRole('button', { name: 'Activate Dormant' }).click();
  await expect(table.getByRole('row', { name: /Dormant/ })).toContainText('Active');
  await checkPage(page, 'automations');

  await table.getByRole('link', { name: 'Welcome' }).click();
  await expect(page.getByRole('heading', { name: 'Step 1: email “Welcome aboard”' })).toBeVisible();
  await expect(page.getByRole('heading', { name: 'Step 2: wait 1 day (P1D)' })).toBeVisible();
  await expect(page.getByRole('heading', { name: 'Step 3: email “Day two”' })).toBeVisible();
  const runs = page.getByRole('table', { name: /Runs of the automation/ });
  // The run sends its first email, then waits a day at step 2.
  await expect(async () => {
    await page.getByRole('button', { name: 'Refresh runs' }).click();
    await expect(runs.getByRole('row').nth(1)).toContainText('2 of 3 (wait)', { timeout: 1000 });
  }).toPass({ timeout: 20_000 });
  await expect(runs.getByRole('row').nth(1)).toContainText('ada@example.net');
  await expect(runs.getByRole('row').nth(1)).toContainText('running');
  await checkPage(page, 'automation');

  await page.getByRole('button', { name: 'Deactivate Welcome' }).click();
  await expect(page.getByRole('button', { name: 'Activate Welcome' })).toBeVisible();
  await expect(async () => {
    await page.getByRole('button', { name: 'Refresh runs' }).click();
    await expect(runs.getByRole('row').nth(1)).toContainText('cancelled', { timeout: 1000 });
  }).toPass({ timeout: 20_000 });
  expect((await call('GET', `/automations/${id}`)).body.data.enabled).toBe(false);
  await page.getByRole('button', { name: 'Activate Welcome' }).click();
  await expect(page.getByRole('button', { name: 'Deactivate Welcome' })).toBeVisible();
  expect((await call('GET', `/automations/${id}`)).body.data).toMatchObject({ enabled: true, activation: 2 });
  expect(problems).toEqual([]);
  await close();
}, 45_000);

test('migrations: one started from the form and watched to its report, its id mapping downloaded; a key the source refuses, told', async () => {
  // The source: another account of this Herald, which speaks the original's API.
  const source = await herald.newAccount();
  const sourceCall = (method: string, path: string, json?: unknown) =>
    callHerald(herald.baseUrl, method, `/v2/${source.account}${path}`, { json, headers: { authorization: `Bearer ${source.apiKey}` } });
  const list = await sourceCall('POST', '/lists', { name: 'Readers' });
  for (let i = 0; i < 40; i += 1) expect((await sourceCall('POST', `/lists/${list.body.data.id}/contacts`, { email: `reader${i}@example.org` })).status).toBe(200);
  const target = await herald.newAccount();
  const mover = await consoleUser(herald.services.store, target.account);
  const { page, problems, close } = await newConsolePage(browser);
  acceptDialogs(page);
  await signIn(page, herald.baseUrl, mover.email, mover.password, '/console/migrations');
  await expect(page.getByText('No migration yet.')).toBeVisible();
  await checkPage(page, 'migrations');

  await page.getByLabel('Source URL').fill(herald.baseUrl);
  await page.getByLabel('Account at the source').fill(source.account);
  await page.getByLabel('API key at the source').fill(source.apiKey);
  await page.getByRole('button', { name: 'Start migration' }).click();
  await expect(page).toHaveURL(/\/console\/migrations\/\d+$/);
  const bar = page.getByRole('progressbar', { name: /Migration from/ });
  await expect(bar).toHaveJSProperty('value', 1, { timeout: 60_000 });
  await expect(page.getByRole('status').filter({ hasText: 'FINISHED' })).toContainText('100%');
  const report = page.getByRole('table', { name: 'What was migrated, per kind' });
  await expect(report.getByRole('row').filter({ hasText: 'Contacts' })).toContainText('40');
  await expect(report.getByRole('row').filter({ hasText: 'Lists' })).toContainText('1');
  await checkPage(page, 'migration');
  const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Download the id mapping (CSV)' }).click()]);
  const chunks: Buffer[] = [];
  for await (const chunk of await download.createReadStream()) chunks.push(chunk as Buffer);
  const mapping = Buffer.concat(chunks).toString('utf8').trim().split('\n');
  expect(mapping[0]).toBe('source,kind,source_id,herald_id');
  expect(mapping.filter((row) => row.includes(',contacts,'))).toHaveLength(40);
  const migrated = await callHerald(herald.baseUrl, 'GET', `/v2/${target.account}/contacts?limit=100`, { headers: { authorization: `Bearer ${target.apiKey}` } });
  expect(migrated.body.paging.total).toBe(40);

  // A key the source refuses: the migration stops, and the page says why.
  await page.getByRole('link', { name: '← All migrations' }).click();
  await expect(page.getByRole('table', { name: 'Migrations run before' }).getByRole('row')).toHaveCount(2);
  await page.getByLabel('Source URL').fill(herald.baseUrl);
  await page.getByLabel('Account at the source').fill(source.account);
  await page.getByLabel('API key at the source').fill(`${source.account}-${'x'.repeat(32)}`);
  await page.getByRole('button', { name: 'Start migration' }).click();
  await expect(page.getByRole('status').filter({ hasText: 'FAILED' })).toContainText('refused the key (401', { timeout: 60_000 });
  await expect(page.getByText('Nothing more was written.')).toBeVisible();
  expect(problems).toEqual([]);
  await close();
}, 120_000);
