// The console tests' browser: Debian's headless Chromium, found on PATH (the setup step installs the
// `chromium-headless-shell` package when missing) and driven by playwright-core, which downloads nothing. The
// global setup starts one browser server for the whole run; each test file connects to it and
// works in contexts of its own (separate storage, so separate sessions).
import fs from 'node:fs';
import path from 'node:path';
import AxeBuilder from '@axe-core/playwright';
import { chromium, type Browser, type BrowserServer, type Page } from 'playwright-core';
import { findExecutable } from '../../infra/executables';
import { HEADLESS_CHROMIUM } from '../../infra/system-packages';
import { createUser } from '../../core/accounts/users';
import { newId } from '../../core/shared/ids';
import { safetyNet } from './safety-net';
import type { Store } from '../../adapters/store/store';

/** Starts the run's browser (global setup). Root needs Chromium's own sandbox off. */
export async function launchBrowserServer(): Promise<BrowserServer> {
  const executablePath = findExecutable(HEADLESS_CHROMIUM);
  if (!executablePath) throw new Error(`Chromium is not installed: run \`npm test\` (its setup step installs it) or \`apt-get install ${HEADLESS_CHROMIUM}\`.`);
  return chromium.launchServer({
    executablePath,
    args: process.getuid?.() === 0 ? ['--no-sandbox'] : [],
    host: '127.0.0.1',
  });
}

/** The run's browser, or one of this file's own when the global setup started none (a single file run with another config). */
export async function connectBrowser(): Promise<Browser> {
  const endpoint = process.env.HERALD_BROWSER_WS;
  if (endpoint) return chromium.connect(endpoint);
  const server = await launchBrowserServer();
  const browser = await chromium.connect(server.wsEndpoint());
  browser.on('disconnected', () => void server.close());
  return browser;
}

/** A page at a laptop's size (1280 pixels wide, the smallest the console is made for). */
export async function newConsolePage(browser: Browser): Promise<{ page: Page; problems: string[]; close: () => Promise<void> }> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  // Playwright's waits (30 s each by default) are safety nets too.
  context.setDefaultTimeout(safetyNet(30_000));
  const page = await context.newPage();
  const problems = watchProblems(page);
  return { page, problems, close: () => context.close() };
}

/**
 * What the page itself reports as wrong: script errors, console errors (a CSP violation is one)
 * and failed requests other than the API errors a test provokes on purpose. Tests assert it empty.
 */
export function watchProblems(page: Page): string[] {
  const problems: string[] = [];
  page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
  page.on('console', (message) => {
    if (message.type() !== 'error') return;
    const text = message.text();
    // The browser logs every 4xx answer of fetch: those are the API's, shown by the page itself.
    if (/Failed to load resource: the server responded with a status of 4\d\d/.test(text)) return;
    problems.push(`console: ${text}`);
  });
  return problems;
}

/** Signs in through the form; resolves once the console's frame is there. */
export async function signIn(page: Page, baseUrl: string, user: string, password: string, path = '/console'): Promise<void> {
  await page.goto(`${baseUrl}${path}`);
  await page.getByLabel('Email or username@account').fill(user);
  await page.getByLabel('Password', { exact: true }).fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('button', { name: 'Sign out' }).waitFor();
}

/**
 * A page a test has built, as a person sees it: checked against axe-core's WCAG 2 A and AA rules
 * (labels and names of controls, contrast, landmarks; it throws the violations), and saved as a
 * screenshot for docs/console.md when HERALD_CONSOLE_SCREENSHOTS names a folder (`npm run screenshots`).
 */
export async function checkPage(page: Page, name: string): Promise<void> {
  const violations = await accessibilityViolations(page);
  if (violations.length > 0) throw new Error(`The ${name} page breaks WCAG rules:\n${violations.join('\n')}`);
  const dir = process.env.HERALD_CONSOLE_SCREENSHOTS;
  if (!dir) return;
  fs.mkdirSync(dir, { recursive: true });
  await page.screenshot({ path: path.join(dir, `${name}.png`), fullPage: false });
}

/** A user of `account` who signs in with a password: every permission unless some are named. */
export async function consoleUser(store: Store, account: string, permissions?: string[]): Promise<{ email: string; password: string }> {
  const email = `${newId().slice(0, 10).toLowerCase()}@console.test`;
  const password = `pw-${newId()}`;
  await createUser(store, account, { email, password, permissions });
  return { email, password };
}

/**
 * The WCAG 2 A and AA rules axe-core checks on the page as it stands (labels, names, contrast,
 * landmarks): the violations, as `rule: the first offending element` lines, for `toEqual([])`.
 */
export async function accessibilityViolations(page: Page): Promise<string[]> {
  // Sandboxed previews (a message's HTML, no scripts allowed) are the marketer's content, not the
  // console's: left out, and axe does not wait for frames it cannot run in. With no frames to
  // check, axe runs in the page itself (legacy mode): its default opens a blank page to merge each
  // frame's results there, which took most of a console test's CPU (~3 s a check). Details are
  // gathered for violations only, the one result read.
  const { violations } = await new AxeBuilder({ page }).withTags(['wcag2a', 'wcag2aa']).exclude('iframe').setLegacyMode()
    .options({ iframes: false, resultTypes: ['violations'] }).analyze();
  return violations.map((v) => `${v.id}: ${v.nodes.length} element(s), e.g. ${v.nodes[0]?.target.join(' ')} (${v.help})`);
}
