// The audience pages in a real browser against the real stack: a list created, a CSV of 2,000
// contacts imported into it with the progress bar followed to its end, the list renamed and
// deleted; a contact whose name is markup shown as text; a contact created, edited, exported.
import { expect } from '@playwright/test';
import type { Browser } from 'playwright-core';
import { startTestHerald, type TestHerald } from '../support/herald';
import { connectBrowser, consoleUser, newConsolePage, checkPage, signIn } from '../support/browser';
import type { NewAccount } from '../../core/accounts/accounts';

let herald: TestHerald;
let browser: Browser;
let acme: NewAccount;
let user: { email: string; password: string };

beforeAll(async () => {
  [herald, browser] = await Promise.all([startTestHerald(), connectBrowser()]);
  acme = await herald.newAccount();
  user = await consoleUser(herald.services.store, acme.account);
});

afterAll(async () => {
  await browser?.close();
  await herald?.stop();
});

/** The account API as a script calls it: seeding is not what these tests are about. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the API's JSON, read by each test
async function call(method: string, path: string, body?: unknown): Promise<any> {
  const response = await fetch(`${herald.baseUrl}/v2/${acme.account}${path}`, {
    method, headers: { authorization: `Bearer ${acme.apiKey}`, 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body),
  });
  const json = await response.json();
  if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${JSON.stringify(json)}`);
  return json;
}

test('create a list, import a CSV of 2,000 contacts into it and watch the progress bar reach the end; rename and delete the list', async () => {
  const { page, problems, close } = await newConsolePage(browser);
  const dialogs: string[] = [];
  page.on('dialog', (dialog) => { dialogs.push(dialog.message()); void dialog.accept(); });
  await signIn(page, herald.baseUrl, user.email, user.password, '/console/lists');
  await page.getByLabel('List name').fill('Customers');
  await page.getByRole('button', { name: 'Create list' }).click();
  await expect(page.getByRole('link', { name: 'Customers' })).toBeVisible();

  await page.goto(`${herald.baseUrl}/console/contacts/import`);
  const rows = Array.from({ length: 2000 }, (_, i) => `person${i}@import.test;Person;Number ${i}`);
  await page.getByLabel('CSV file').setInputFiles({ name: 'people.csv', mimeType: 'text/csv', buffer: Buffer.from(`email;first name;last name\n${rows.join('\n')}\n`) });
  await page.getByLabel('Add every contact to the list').selectOption({ label: 'Customers' });
  await page.getByRole('button', { name: 'Preview' }).click();
  // The separator and columns as the API inferred them, and the first rows as it would take them.
  await expect(page.getByLabel('Column 1: email')).toHaveValue('3');
  await expect(page.getByRole('cell', { name: 'person0@import.test' })).toBeVisible();
  await page.getByRole('button', { name: 'Start import' }).click();
  const bar = page.getByRole('progressbar', { name: /Importing/ });
  await expect(bar).toBeVisible();
  await expect(bar).toHaveJSProperty('value', 1, { timeout: 30_000 });
  await expect(page.getByRole('status').filter({ hasText: 'FINISHED' })).toContainText('100%');
  const result = page.getByLabel('Import result');
  await expect(result.locator('.stat').filter({ hasText: 'Created' })).toContainText('2,000');
  await expect(result.locator('.stat').filter({ hasText: 'Errors' })).toContainText('0');
  await checkPage(page, 'import');

  await page.goto(`${herald.baseUrl}/console/lists`);
  const row = page.getByRole('row').filter({ has: page.getByRole('link', { name: 'Customers' }) });
  await expect(row.getByRole('cell').nth(3)).toHaveText('2,000'); // members
  await checkPage(page, 'lists');
  await row.getByRole('button', { name: 'Rename Customers' }).click();
  await page.getByLabel('New name for Customers').fill('Clients');
  await page.getByRole('button', { name: 'Save name' }).click();
  await expect(page.getByRole('link', { name: 'Clients' })).toBeVisible();
  expect((await call('GET', '/lists')).data.map((l: { name: string }) => l.name)).toEqual(['Clients']);
  const renamed = page.getByRole('row').filter({ has: page.getByRole('link', { name: 'Clients' }) });
  await renamed.getByRole('button', { name: 'Delete' }).click();
  await expect(page.getByText('No lists yet.')).toBeVisible();
  expect(dialogs).toEqual(['Delete the list Clients? Its 2000 contacts stay, off this list.']);
  expect((await call('GET', '/lists')).data).toEqual([]);
  expect(problems).toEqual([]);
  await close();
});

test('a contact named <script> shows as text; a contact is created, edited and exported', async () => {
  const markup = '<script>alert(1)</script>';
  const { data: shown } = await call('POST', '/contacts', { email: 'markup@people.test', firstName: markup, lastName: '<b>bold</b>' });
  const { data: list } = await call('POST', '/lists', { name: 'Newsletter' });
  const { page, problems, close } = await newConsolePage(browser);
  const dialogs: string[] = [];
  page.on('dialog', (dialog) => { dialogs.push(dialog.message()); void dialog.dismiss(); });
  await signIn(page, herald.baseUrl, user.email, user.password, '/console/contacts');

  // The search goes into the address, and a reload keeps it.
  await page.getByLabel('Email contains').fill('markup');
  await page.getByRole('button', { name: 'Search' }).click();
  await expect(page).toHaveURL(/\/console\/contacts\?q=markup$/);
  await page.reload();
  await expect(page.getByLabel('Email contains')).toHaveValue('markup');
  await expect(page.getByRole('cell', { name: `${markup} <b>bold</b>` })).toBeVisible();
  await checkPage(page, 'contacts');
  await page.getByRole('link', { name: 'markup@people.test' }).click();
  await expect(page.getByRole('heading', { name: 'markup@people.test' })).toBeVisible();
  await expect(page.getByText(`${markup} <b>bold</b>`, { exact: true })).toBeVisible();
  expect(await page.locator('main script, main b').count()).toBe(0);
  await checkPage(page, 'contact');
  expect(page.url()).toBe(`${herald.baseUrl}/console/contacts/${shown.id}`);

  // Create, then edit: names, a list.
  await page.goto(`${herald.baseUrl}/console/contacts/new`);
  await page.getByLabel('Email').fill('ada@people.test');
  await page.getByLabel('First name').fill('Ada');
  await page.getByRole('button', { name: 'Create contact' }).click();
  await expect(page.getByRole('heading', { name: 'ada@people.test' })).toBeVisible();
  await page.getByRole('button', { name: 'Edit' }).click();
  await page.getByLabel('Last name').fill('Lovelace');
  await page.getByLabel('Newsletter').check();
  await page.getByRole('button', { name: 'Save contact' }).click();
  await expect(page.getByText('Saved.')).toBeVisible();
  await expect(page.getByRole('link', { name: 'Newsletter' })).toBeVisible();
  const { data: ada } = await call('GET', '/contacts/ada@people.test');
  expect(ada).toMatchObject({ firstName: 'Ada', lastName: 'Lovelace', state: 'ACTIVE', lists: [{ id: list.id, name: 'Newsletter' }] });

  // A taken email is refused beside its field.
  await page.goto(`${herald.baseUrl}/console/contacts/new`);
  await page.getByLabel('Email').fill('ada@people.test');
  await page.getByRole('button', { name: 'Create contact' }).click();
  await expect(page.locator('.field-error')).toBeVisible();
  await expect(page.getByRole('button', { name: 'Create contact' })).toBeEnabled();

  // Export the list's contacts: the file comes through a Blob, the token in no URL.
  const urls: string[] = [];
  page.on('request', (r) => urls.push(r.url()));
  await page.goto(`${herald.baseUrl}/console/contacts?list=${list.id}`);
  await expect(page.getByRole('cell', { name: 'Ada Lovelace' })).toBeVisible();
  await page.getByRole('button', { name: 'Export CSV' }).click();
  const downloadButton = page.getByRole('button', { name: /^Download contacts-/ });
  await expect(downloadButton).toBeVisible({ timeout: 20_000 });
  const [download] = await Promise.all([page.waitForEvent('download'), downloadButton.click()]);
  const chunks: Buffer[] = [];
  for await (const chunk of await download.createReadStream()) chunks.push(chunk as Buffer);
  const csv = Buffer.concat(chunks).toString('utf8');
  expect(csv).toContain('ada@people.test');
  expect(csv).not.toContain('markup@people.test');
  expect(urls.filter((u) => /token/i.test(u))).toEqual([]);
  expect(dialogs).toEqual([]);
  expect(problems).toEqual([]);
  await close();
});

test('a user who may only read contacts sees them, with the controls to change them disabled', async () => {
  const reader = await consoleUser(herald.services.store, acme.account, ['contacts:list', 'lists:list', 'interests:list', 'fields:list', 'activity:list']);
  const { page, problems, close } = await newConsolePage(browser);
  await signIn(page, herald.baseUrl, reader.email, reader.password, '/console/contacts/ada@people.test');
  await expect(page.getByRole('heading', { name: 'ada@people.test' })).toBeVisible();
  await expect(page.getByRole('button', { name: 'Edit' })).toBeDisabled();
  await expect(page.getByRole('button', { name: 'Unsubscribe' })).toBeDisabled();
  await expect(page.getByRole('button', { name: 'Delete' })).toBeDisabled();
  await page.goto(`${herald.baseUrl}/console/lists`);
  await expect(page.getByRole('link', { name: 'Newsletter' })).toBeVisible();
  await expect(page.getByRole('button', { name: 'Create list' })).toBeDisabled();
  await expect(page.getByRole('button', { name: 'Rename Newsletter' })).toBeDisabled();
  expect(problems).toEqual([]);
  await close();
});
