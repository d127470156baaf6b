// The campaign pages in a real browser against the real stack: a campaign created in the form,
// its MJML content previewed (rendered by the API, shown in an empty-sandbox iframe), a test sent
// to the SMTP sink, validated check by check, launched to a list seeded through the API, and its
// report's sent count reaching the audience; and a user without campaigns:update who sees a
// campaign but whose controls are disabled (the API refusing too).
import { expect } from '@playwright/test';
import type { Browser, Page } from 'playwright-core';
import { addDays, format } from 'date-fns';
import { startTestHerald, type TestHerald } from '../support/herald';
import { connectBrowser, consoleUser, newConsolePage, checkPage, signIn } from '../support/browser';

let herald: TestHerald;
let browser: Browser;
let account: string;
let apiKey: string;

/** The account API as a script calls it, with the account's key. */
async function call(method: string, path: string, body?: unknown, headers: Record<string, string> = { Authorization: `Bearer ${apiKey}` }) {
  const response = await fetch(`${herald.baseUrl}/v2/${account}${path}`, {
    method, headers: { ...headers, ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) }, body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: response.status, body: await response.json() as { data: any } }; // eslint-disable-line @typescript-eslint/no-explicit-any
}

const AUDIENCE = 5;

beforeAll(async () => {
  // Pages of two recipients: the launch spans pages, so the report's count grows as it goes.
  [herald, browser] = await Promise.all([startTestHerald({ campaignTuning: { pageSize: 2 } }), connectBrowser()]);
  ({ account, apiKey } = await herald.newAccount());
}, 60000);

afterAll(async () => {
  await browser?.close();
  await herald?.stop();
});

async function acceptDialogs(page: Page) {
  page.on('dialog', (dialog) => void dialog.accept());
}

test('create a campaign with MJML content, preview it, send a test, launch it to a list and watch its report reach the audience', async () => {
  const list = (await call('POST', '/lists', { name: 'Spring readers' })).body.data;
  for (let i = 0; i < AUDIENCE; i += 1) expect((await call('POST', `/lists/${list.id}/contacts`, { email: `reader${i}@example.net` })).status).toBe(200);
  const user = await consoleUser(herald.services.store, account);
  const { page, problems, close } = await newConsolePage(browser);
  await acceptDialogs(page);
  await signIn(page, herald.baseUrl, user.email, user.password, '/console/campaigns/new');

  await page.getByLabel('Name', { exact: true }).fill('Spring sale');
  await page.getByLabel('Subject').fill('Our spring sale');
  await page.getByLabel('From name').fill('Herald News');
  await page.getByLabel('From email').fill('news@example.com');
  await page.getByLabel('Include lists').selectOption({ label: 'Spring readers' });
  await page.getByRole('button', { name: 'Create campaign' }).click();
  await page.waitForURL(/\/console\/campaigns\/\d+$/);
  const id = Number(/campaigns\/(\d+)$/.exec(page.url())![1]);
  await expect(page.getByRole('heading', { name: 'Spring sale', level: 1 })).toBeVisible();
  const created = (await call('GET', `/campaigns/${id}`)).body.data;
  expect(created).toMatchObject({ state: 'DRAFT', include: { lists: [list.id] }, contents: [{ subject: 'Our spring sale', from: 'news@example.com', fromName: 'Herald News' }] });

  // The content, in MJML: the preview is the API's rendering of the unsaved body.
  await page.getByRole('link', { name: 'Content', exact: true }).click();
  await page.getByLabel('Format').selectOption('mjml');
  await page.getByLabel('MJML body').fill('<mjml><mj-head><mj-attributes><mj-all font-family="Arial, sans-serif" /></mj-attributes></mj-head><mj-body><mj-section><mj-column><mj-text>Spring offers for ${contact.email}</mj-text>'
    + '<mj-button href="https://example.com/spring">See the offers</mj-button></mj-column></mj-section></mj-body></mjml>');
  // The first MJML render loads mjml in the API process (seconds on a busy machine): the waits on
  // the preview and the save are safety nets, not measures (Playwright's 5 s default was missed once).
  const rendered = { timeout: 30_000 };
  const preview = page.locator('iframe[title="Preview of the message"]');
  await expect(preview).toHaveAttribute('sandbox', '', rendered);
  await expect(page.frameLocator('iframe[title="Preview of the message"]').getByText(/Spring offers for/)).toBeVisible(rendered);
  await expect(page.getByText('Subject as received: Our spring sale')).toBeVisible(rendered);
  await page.getByRole('button', { name: 'Save' }).click();
  await expect(page.getByText('Saved: the MJML compiled.')).toBeVisible(rendered);
  // Reopened, it is MJML again (its source, not the HTML it compiled to).
  await page.reload();
  await expect(page.getByLabel('Format')).toHaveValue('mjml');
  await expect(page.getByLabel('MJML body')).toHaveValue(/^<mjml><mj-head>/);
  await expect(page.frameLocator('iframe[title="Preview of the message"]').getByText(/Spring offers for/)).toBeVisible(rendered);
  await page.getByRole('heading', { level: 1 }).scrollIntoViewIfNeeded();
  await checkPage(page, 'campaign-content');

  await page.getByLabel('Test address').fill('tester@example.org');
  await page.getByRole('button', { name: 'Send a test' }).click();
  await expect(page.getByText(/Test sent to tester@example.org/)).toBeVisible();
  await expect.poll(() => herald.sink.received.filter((m) => m.rcptTo[0] === 'tester@example.org').length, { timeout: 20000 }).toBe(1);
  const test = herald.sink.received.find((m) => m.rcptTo[0] === 'tester@example.org')!;
  expect(test.parsed.subject).toBe('[Test] Our spring sale');
  expect(test.parsed.html).toContain('Spring offers for');

  // Validation, check by check; then the launch.
  await page.getByRole('link', { name: 'Back to the campaign' }).click();
  await page.getByRole('button', { name: 'Validate' }).click();
  const checks = page.getByRole('list', { name: 'Checks' });
  await expect(checks.getByRole('listitem')).toHaveCount(7);
  await expect(checks.getByRole('listitem').filter({ hasText: 'Recipients passed' })).toContainText(`${AUDIENCE} recipient(s)`);
  await expect(page.getByText('Every check passed')).toBeVisible();
  await checkPage(page, 'campaign');
  await page.getByRole('button', { name: 'Launch now' }).click();
  await expect(page.locator('.campaign-state').first()).toContainText(/scheduled|sending|sent/);

  await page.getByRole('link', { name: 'Report', exact: true }).click();
  const sent = page.locator('.stat').filter({ has: page.getByText('Sent', { exact: true }) }).locator('dd');
  await expect(sent).toHaveText(new RegExp(`^${AUDIENCE} `), { timeout: 30000 });
  await expect(page.getByRole('table', { name: 'Opens and clicks over time' })).toBeVisible();
  await checkPage(page, 'campaign-report');
  expect(herald.sink.received.filter((m) => m.rcptTo[0].startsWith('reader')).length).toBe(AUDIENCE);

  await page.getByRole('link', { name: 'Campaigns', exact: true }).click();
  const row = page.getByRole('row').filter({ hasText: 'Spring sale' });
  await expect(row).toContainText('sent');
  await checkPage(page, 'campaigns');

  // A sent campaign is archived from its page, and taken back.
  await row.getByRole('link', { name: 'Spring sale', exact: true }).click();
  await page.getByRole('button', { name: 'Archive', exact: true }).click();
  await expect(page.getByRole('button', { name: 'Unarchive' })).toBeVisible();
  const archived = (await call('GET', `/campaigns/${new URL(page.url()).pathname.split('/').pop()}`)).body.data;
  expect(archived.archived).not.toBeNull();
  await page.getByRole('button', { name: 'Unarchive' }).click();
  await expect(page.getByRole('button', { name: 'Archive', exact: true })).toBeVisible();
  expect(problems).toEqual([]);
  await close();
}, 60000);

test('a user without campaigns:update sees a campaign but cannot change or launch it; the API refuses too', async () => {
  const campaign = (await call('POST', '/campaigns', { name: 'Read only' })).body.data;
  await call('POST', `/campaigns/${campaign.id}/contents`, { subject: 'Hello', from: 'news@example.com', fromName: 'News' });
  const reader = await consoleUser(herald.services.store, account, ['campaigns:list', 'lists:list', 'interests:list']);
  const { page, problems, close } = await newConsolePage(browser);
  await signIn(page, herald.baseUrl, reader.email, reader.password, `/console/campaigns/${campaign.id}`);
  await expect(page.getByRole('heading', { name: 'Read only', level: 1 })).toBeVisible();
  await expect(page.getByText(/lack the campaigns:update permission/)).toBeVisible();
  await expect(page.getByLabel('Name', { exact: true })).toHaveValue('Read only');
  await expect(page.getByLabel('Name', { exact: true })).toBeDisabled();
  await expect(page.getByLabel('Subject')).toHaveValue('Hello');
  await expect(page.getByRole('button', { name: 'Save' })).toBeDisabled();
  await expect(page.getByRole('button', { name: 'Launch now' })).toBeDisabled();
  await expect(page.getByRole('button', { name: 'Launch now' })).toHaveAttribute('title', /campaigns:launch/);
  await expect(page.getByRole('button', { name: 'Duplicate' })).toBeDisabled();
  await page.getByRole('link', { name: 'Content', exact: true }).click();
  await expect(page.getByLabel('HTML body')).toBeDisabled();
  await expect(page.getByRole('button', { name: 'Save' })).toBeDisabled();
  await expect(page.getByRole('button', { name: 'Send a test' })).toBeDisabled();

  const token = JSON.parse(await page.evaluate(() => (globalThis as unknown as { sessionStorage: { getItem(key: string): string } }).sessionStorage.getItem('herald.session'))).token as string;
  const refused = await call('PUT', `/campaigns/${campaign.id}`, { name: 'Changed' }, { 'X-Auth-Token': token });
  expect(refused.status).toBe(403);
  expect((await call('GET', `/campaigns/${campaign.id}`)).body.data.name).toBe('Read only');
  expect(problems).toEqual([]);
  await close();
});

test('schedule a draft for tomorrow, take it back to draft, and duplicate it', async () => {
  const list = (await call('POST', '/lists', { name: 'Tomorrow readers' })).body.data;
  await call('POST', `/lists/${list.id}/contacts`, { email: 'tomorrow@example.net' });
  const campaign = (await call('POST', '/campaigns', { name: 'Tomorrow', include: { lists: [list.id] } })).body.data;
  const content = (await call('POST', `/campaigns/${campaign.id}/contents`, { subject: 'Soon', from: 'news@example.com', fromName: 'News' })).body.data;
  const html = await fetch(`${herald.baseUrl}/v2/${account}/campaigns/${campaign.id}/contents/${content.id}.html`, {
    method: 'PUT', headers: { Authorization: `Bearer ${apiKey}`, 'Content-Type': 'text/html' }, body: '<p>Tomorrow</p>',
  });
  expect(html.status).toBe(200);
  const user = await consoleUser(herald.services.store, account);
  const { page, problems, close } = await newConsolePage(browser);
  page.on('dialog', (dialog) => void dialog.accept());
  await signIn(page, herald.baseUrl, user.email, user.password, `/console/campaigns/${campaign.id}`);
  const tomorrow = addDays(new Date(), 1);
  await page.getByLabel('Send at (your time)').fill(format(tomorrow, "yyyy-MM-dd'T'HH:mm"));
  await page.getByRole('button', { name: 'Schedule' }).click();
  await expect(page.locator('.campaign-state').first()).toHaveText('scheduled');
  const scheduled = (await call('GET', `/campaigns/${campaign.id}`)).body.data;
  expect(scheduled).toMatchObject({ state: 'SCHEDULED', launchDate: expect.stringMatching(new RegExp(`^${tomorrow.toISOString().slice(0, 15)}`)) });
  await page.getByRole('button', { name: 'Unschedule (back to draft)' }).click();
  await expect(page.locator('.campaign-state').first()).toHaveText('draft');
  await page.getByRole('button', { name: 'Duplicate' }).click();
  await expect(page.getByRole('heading', { name: 'Tomorrow (copy)', level: 1 })).toBeVisible();
  expect(page.url()).not.toMatch(new RegExp(`/campaigns/${campaign.id}$`));
  expect(problems).toEqual([]);
  await close();
});
