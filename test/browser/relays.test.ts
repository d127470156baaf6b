// The Relays and feedback page in a real browser against the real stack, started from a relays
// file: the relays with their state as the worker's lease says it (and "partly down" once another
// worker's lease disagrees), never a relay URL's credentials; each feedback source's URL to paste
// into the provider, copied with its button, and "never" for a source no report came from.
import { expect } from '@playwright/test';
import type { Browser } from 'playwright-core';
import type { RelayLeaseDoc } from '../../adapters/store/store';
import { startTestHerald, type TestHerald } from '../support/herald';
import { checkPage, connectBrowser, consoleUser, newConsolePage, signIn } from '../support/browser';

let herald: TestHerald;
let browser: Browser;
let admin: { email: string; password: string };

beforeAll(async () => {
  [herald, browser] = await Promise.all([
    startTestHerald({
      relaysFile: (sinkUrl) => ({
        relays: [
          { name: 'main', url: sinkUrl.replace('smtp://', 'smtp://user:relay-secret@'), streams: ['transactional', 'campaign'], ratePerSecond: 20 },
          { name: 'fallback', url: 'smtps://fallback.example:465', recipientDomains: ['example.org'], maxConnections: 2 },
        ],
        feedback: { postmark: { username: 'herald', password: 'postmark-password-1' } },
      }),
    }),
    connectBrowser(),
  ]);
  const { account } = await herald.newAccount('acme');
  admin = await consoleUser(herald.services.store, account);
});
afterAll(async () => {
  await browser?.close();
  await herald?.stop();
});

test('the relays with their state, and the feedback URLs to paste, copied with a button', async () => {
  const { page, problems, close } = await newConsolePage(browser);
  await page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: herald.baseUrl });
  await signIn(page, herald.baseUrl, admin.email, admin.password);
  await page.getByRole('link', { name: 'Relays and feedback' }).click();
  await expect(page.getByRole('heading', { name: 'Relays and feedback', level: 1 })).toBeVisible();

  const relays = page.getByRole('table', { name: 'Relays' });
  const main = relays.getByRole('row', { name: /main/ });
  await expect(main).toContainText('up');
  await expect(main).toContainText('Streams: transactional, campaign');
  await expect(main).toContainText('20/s · 5 connections');
  await expect(relays.getByRole('row', { name: /fallback/ })).toContainText('Recipients: example.org');
  await expect(relays).not.toContainText('relay-secret');

  const publicUrl = herald.herald.config.publicUrl;
  const sources = page.getByRole('table', { name: 'Feedback sources' });
  const postmark = sources.getByRole('row', { name: /Postmark/ });
  await expect(postmark).toContainText(`${publicUrl}/v1/feedback/postmark`);
  await expect(postmark).toContainText('never');
  await expect(sources.getByRole('row', { name: /SendGrid/ })).toContainText('not configured');
  await postmark.getByRole('button', { name: 'Copy Postmark URL' }).click();
  await expect(postmark.getByRole('status')).toHaveText('Copied.');
  const readClipboard = () => (globalThis as unknown as { navigator: { clipboard: { readText(): Promise<string> } } }).navigator.clipboard.readText();
  expect(await page.evaluate(readClipboard)).toBe(`${publicUrl}/v1/feedback/postmark`);
  await expect(page.getByText('not configured (feedback.mailbox)')).toBeVisible();

  // Another worker that finds the relay down: the page, refreshing itself, says so.
  await herald.services.store.relayLeases.insertOne({
    _id: 'main:another-worker', relay: 'main', process: 'another-worker', expiresAt: new Date(Date.now() + 60_000), up: false,
    counts: { sent: 0, deferred: 0, failed: 3, trouble: 0 },
  } as RelayLeaseDoc); // as a worker writes it (fields this test does not need left out)
  await expect(main).toContainText('partly down', { timeout: 8000 });
  await checkPage(page, 'relays');
  expect(problems).toEqual([]);
  await close();
}, 30_000);
