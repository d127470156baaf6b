// Every section of the console against axe-core's WCAG 2 A and AA rules (labels and names of
// controls, contrast, landmarks, headings), signed in as a user with every permission, with a
// little data in each page (a list, a contact, a campaign, a webhook endpoint).
import { expect } from '@playwright/test';
import type { Browser } from 'playwright-core';
import { startTestHerald, type TestHerald } from '../support/herald';
import { accessibilityViolations, connectBrowser, consoleUser, newConsolePage, signIn } from '../support/browser';
import { callHerald } from '../support/http';

let herald: TestHerald;
let browser: Browser;
let account: string;
let user: { email: string; password: string };
const created: Record<string, number> = {};

beforeAll(async () => {
  [herald, browser] = await Promise.all([startTestHerald(), connectBrowser()]);
  const acme = await herald.newAccount();
  account = acme.account;
  user = await consoleUser(herald.services.store, account);
  const api = async (path: string, json: unknown) => {
    const answer = await callHerald(herald.baseUrl, 'POST', `/v2/${account}${path}`, { headers: { authorization: `Bearer ${acme.apiKey}` }, json });
    expect(answer.status).toBeLessThan(300);
    return answer.body.data as { id: number };
  };
  created.list = (await api('/lists', { name: 'Newsletter' })).id;
  created.contact = (await api('/contacts', { email: 'ada@example.com', firstName: 'Ada', lists: [created.list] })).id;
  created.campaign = (await api('/campaigns', { name: 'Spring', include: { lists: [created.list] } })).id;
  created.webhook = (await api('/webhooks', { url: 'http://127.0.0.1:9/hook', events: ['track.mail.opened'] })).id;
});

afterAll(async () => {
  await browser?.close();
  await herald?.stop();
});

test('every section meets the WCAG 2 A and AA rules axe-core checks', async () => {
  const { page, problems, close } = await newConsolePage(browser);
  await page.goto(`${herald.baseUrl}/console`);
  expect(await accessibilityViolations(page)).toEqual([]); // the sign-in page
  await signIn(page, herald.baseUrl, user.email, user.password);
  const pages = [
    '', '/activity', '/batches', '/suppressions', '/sending', '/contacts', `/contacts/${created.contact}`, '/contacts/new', '/contacts/import',
    '/lists', '/interests', '/fields', '/campaigns', '/campaigns/new', `/campaigns/${created.campaign}`, `/campaigns/${created.campaign}/content`,
    `/campaigns/${created.campaign}/report`, '/automations', '/webhooks', `/webhooks/${created.webhook}`, '/users',
  ];
  const found: string[] = [];
  for (const path of pages) {
    await page.goto(`${herald.baseUrl}/console${path}`);
    await page.getByRole('heading', { level: 1 }).waitFor();
    await expect(page.getByText('Loading…')).toHaveCount(0); // checked with its data in
    found.push(...(await accessibilityViolations(page)).map((v) => `${path || '/'}: ${v}`));
  }
  expect(found).toEqual([]);
  expect(problems).toEqual([]);
  await close();
});
