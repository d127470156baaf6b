// Signing in and out of the console in a real browser (Chromium through Playwright), against the
// real stack: the form, a wrong password, the keyboard alone, the account choice, an expired
// password, a session that ends while in use, and what the console's pages are served with.
import { expect } from '@playwright/test';
import type { Browser } from 'playwright-core';
import { startTestHerald, type TestHerald } from '../support/herald';
import { accessibilityViolations, connectBrowser, consoleUser, newConsolePage, checkPage, signIn } from '../support/browser';
import { createUser } from '../../core/accounts/users';

let herald: TestHerald;
let browser: Browser;
let account: string;
let user: { email: string; password: string };

beforeAll(async () => {
  [herald, browser] = await Promise.all([startTestHerald(), connectBrowser()]);
  ({ account } = await herald.newAccount());
  user = await consoleUser(herald.services.store, account);
});

afterAll(async () => {
  await browser?.close();
  await herald?.stop();
});

test('the pages\' accessibility check finds what breaks WCAG rules (a field without a label, text too faint to read)', async () => {
  const { page, close } = await newConsolePage(browser);
  try {
    await page.setContent('<html lang="en"><head><title>Check</title></head><body><main><h1>Form</h1>'
      + '<input type="text"><p style="color:#ccc;background:#fff">faint</p></main></body></html>');
    const violations = await accessibilityViolations(page);
    expect(violations).toHaveLength(2);
    expect(violations).toEqual(expect.arrayContaining([expect.stringMatching(/^color-contrast: 1 element/), expect.stringMatching(/^label: 1 element/)]));
  } finally {
    await close();
  }
});

test('the console page is served with a strict CSP and its assets with a year of cache', async () => {
  const page = await fetch(`${herald.baseUrl}/console/campaigns`);
  expect(page.status).toBe(200);
  const csp = page.headers.get('content-security-policy')!;
  expect(csp).toContain("script-src 'self'");
  expect(csp).toContain("frame-ancestors 'none'");
  expect(csp).not.toMatch(/script-src[^;]*unsafe/);
  expect(page.headers.get('cache-control')).toBe('no-cache');
  const html = await page.text();
  const script = /src="(\/console\/assets\/[^"]+\.js)"/.exec(html)![1];
  const asset = await fetch(`${herald.baseUrl}${script}`);
  expect(asset.status).toBe(200);
  expect(asset.headers.get('cache-control')).toContain('immutable');
  expect((await fetch(`${herald.baseUrl}/console/assets/nothing.js`)).status).toBe(404);
});

test('a wrong password is refused beside the form; the right one signs in; sign out ends the session', async () => {
  const { page, problems, close } = await newConsolePage(browser);
  const tokens: string[] = [];
  page.on('request', (r) => {
    const token = r.headers()['x-auth-token'];
    if (token) tokens.push(token);
    expect(r.url()).not.toMatch(/token=/i);
  });
  await page.goto(`${herald.baseUrl}/console`);
  await page.getByLabel('Email or username@account').fill(user.email);
  await page.getByLabel('Password', { exact: true }).fill('not-the-password');
  await checkPage(page, 'signin');
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page.getByRole('alert')).toHaveText(/Invalid|password|credentials/i);
  await expect(page.getByRole('button', { name: 'Sign in' })).toBeEnabled();

  await page.getByLabel('Password', { exact: true }).fill(user.password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page.getByRole('button', { name: 'Sign out' })).toBeVisible();
  expect(page.url()).toBe(`${herald.baseUrl}/console`);
  await expect(page.getByText(`account ${account}`)).toBeVisible();

  await page.getByRole('button', { name: 'Sign out' }).click();
  await expect(page.getByText('You are signed out.')).toBeVisible();
  expect(tokens.length).toBeGreaterThan(0); // every call carried it in its header, none in its URL
  // The token no longer works on the server either.
  const after = await fetch(`${herald.baseUrl}/v2/${account}/lists`, { headers: { 'X-Auth-Token': tokens[tokens.length - 1] } });
  expect(after.status).toBe(401);
  expect(problems).toEqual([]);
  await close();
});

test('signing in and moving around with the keyboard alone', async () => {
  const { page, problems, close } = await newConsolePage(browser);
  await page.goto(`${herald.baseUrl}/console`);
  // The user field has the focus on arrival; Tab goes to the password, then the button.
  await expect(page.getByLabel('Email or username@account')).toBeFocused();
  await page.keyboard.type(user.email);
  await page.keyboard.press('Tab');
  await page.keyboard.type(user.password);
  await page.keyboard.press('Tab');
  await expect(page.getByRole('button', { name: 'Sign in' })).toBeFocused();
  await page.keyboard.press('Enter');
  await expect(page.getByRole('button', { name: 'Sign out' })).toBeVisible();
  // After sign-in the page's heading has the focus, so a screen reader starts there.
  await expect(page.getByRole('heading', { level: 1 })).toBeFocused();
  // On a fresh load, the skip link comes first and leads to the page's content.
  await page.reload();
  await page.getByRole('button', { name: 'Sign out' }).waitFor();
  await page.keyboard.press('Tab');
  await expect(page.getByRole('link', { name: 'Skip to content' })).toBeFocused();
  // The sidebar's links are reached with Tab and followed with Enter; the new page's heading takes the focus.
  for (let i = 0; i < 30; i += 1) {
    await page.keyboard.press('Tab');
    if (await page.getByRole('link', { name: 'Lists', exact: true }).evaluate((link) => link === link.ownerDocument.activeElement)) break;
  }
  await page.keyboard.press('Enter');
  await page.waitForURL(`${herald.baseUrl}/console/lists`);
  await expect(page.getByRole('heading', { level: 1 })).toBeFocused();
  expect(problems).toEqual([]);
  await close();
});

test('a user of several accounts chooses one; an expired password is replaced at sign-in', async () => {
  const other = await herald.newAccount();
  const email = `both-${Date.now()}@console.test`;
  // The same email and password in two accounts; the second's password has expired.
  await createUser(herald.services.store, account, { email, password: 'second-password-2' });
  await createUser(herald.services.store, other.account, { email, password: 'second-password-2', passwordExpired: true });
  const { page, problems, close } = await newConsolePage(browser);
  await page.goto(`${herald.baseUrl}/console`);
  await page.getByLabel('Email or username@account').fill(email);
  await page.getByLabel('Password', { exact: true }).fill('second-password-2');
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page.getByRole('alert')).toHaveText(/several accounts/);
  await page.getByLabel('Account', { exact: true }).selectOption(other.account);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page.getByRole('alert')).toHaveText(/expired/);
  await page.getByLabel('New password', { exact: true }).fill('third-password-3');
  await page.getByLabel('Repeat the new password').fill('third-password-3');
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page.getByText(`account ${other.account}`)).toBeVisible();
  expect(problems).toEqual([]);
  await close();
});

test('a session that ended sends the person to sign in, and back to where they were', async () => {
  const { page, problems, close } = await newConsolePage(browser);
  await signIn(page, herald.baseUrl, user.email, user.password);
  await page.goto(`${herald.baseUrl}/console/lists?q=news`);
  await page.waitForLoadState('networkidle'); // the page's own calls are answered while the session lives
  // The session ends on the server (an hour without use does the same).
  await herald.services.store.sessions.deleteMany({ account });
  await page.reload();
  await expect(page.getByText(/session ended/)).toBeVisible();
  expect(new URL(page.url()).searchParams.get('next')).toBe('/console/lists?q=news');
  await page.getByLabel('Email or username@account').fill(user.email);
  await page.getByLabel('Password', { exact: true }).fill(user.password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL(`${herald.baseUrl}/console/lists?q=news`);
  expect(problems).toEqual([]);
  await close();
});

test('no other site can act as the signed-in user: no cookie carries the session, and the API allows no other origin', async () => {
  const { page, problems, close } = await newConsolePage(browser);
  await signIn(page, herald.baseUrl, user.email, user.password);
  expect(await page.context().cookies()).toEqual([]);
  // Another origin (localhost instead of 127.0.0.1) in the same browser, where the user is signed in.
  const port = new URL(herald.baseUrl).port;
  await page.goto(`http://localhost:${port}/healthz`);
  const fetched = await page.evaluate(async (url) => {
    try {
      const answer = await fetch(url, { method: 'POST', credentials: 'include', headers: { 'content-type': 'application/json' }, body: '{"name":"fetched"}' });
      return `answered ${answer.status}`;
    } catch {
      return 'blocked';
    }
  }, `${herald.baseUrl}/v2/${account}/lists`);
  expect(fetched).toBe('blocked'); // the preflight finds no Access-Control-Allow-Origin
  // A plain form post needs no preflight: it arrives without credentials and is refused.
  await page.setContent(`<form method="post" action="${herald.baseUrl}/v2/${account}/lists"><input name="name" value="forged"><button>Go</button></form>`);
  const posted = page.waitForResponse((r) => r.url().endsWith(`/v2/${account}/lists`));
  await page.getByRole('button', { name: 'Go' }).click();
  expect((await posted).status()).toBe(401);
  const lists = await herald.services.store.lists.countDocuments({ account });
  expect(lists).toBe(0);
  expect(problems.filter((p) => !/CORS|Access-Control|Failed to load resource|net::ERR_FAILED/.test(p))).toEqual([]);
  await close();
});
