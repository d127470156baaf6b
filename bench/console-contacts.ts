// The console's contacts page on an account of 100k contacts, on the embedded store as `npm start`
// runs it (H2 file): the API call the page makes for its first page (GET /contacts with limit 50,
// offset 0, sorted by email; the API counts the total, the client never does) and two filtered
// pages, then, in Chromium (playwright-core, Debian's browser), the time from opening
// /console/contacts to its rows on screen, and from a search in the address to its rows.
import path from 'node:path';
import { chromium } from 'playwright-core';
import { createAccount } from '../core/accounts/accounts';
import { createUser } from '../core/accounts/users';
import { connectStore } from '../adapters/store/store';
import { startEmbeddedStore } from '../infra/store';
import { findExecutable } from '../infra/executables';
import { HEADLESS_CHROMIUM } from '../infra/system-packages';
import { startApiThread } from './api-thread';
import { fillContacts } from './contacts-fill';
import { percentile, round } from './stats';
import { log, Teardown } from './support';

const CONTACTS = 100_000;
const REQUESTS = 30;
const PAGE_LOADS = 10;
const DATABASE = 'herald_bench_console_contacts';
/** The query console/src/pages/audience/search.ts builds for the first page. */
const FIRST_PAGE = 'limit=50&offset=0&sortby=email&sortdir=asc';

const summary = (times: number[]) => ({ p50_ms: round(percentile(times, 50)), p99_ms: round(percentile(times, 99)), max_ms: round(Math.max(...times)) });

export async function runConsoleContacts(): Promise<Record<string, unknown>> {
  const teardown = new Teardown();
  try {
    const dir = teardown.tempDir('herald-bench-console-');
    log('console-contacts: starting the embedded store (H2 file, durable commits)');
    const embedded = await startEmbeddedStore({ file: path.join(dir, 'store.mv.db'), logFile: path.join(dir, 'store.log') });
    teardown.defer('store', () => embedded.stop());
    const store = await connectStore(embedded.uri, DATABASE);
    teardown.defer('store client', () => store.close());
    const base = await startApiThread(embedded.uri, DATABASE, teardown);
    const { account, apiKey } = await createAccount(store, 'benchconsole');
    const password = 'bench-console-password';
    await createUser(store, account, { email: 'viewer@bench.test', password });

    log(`console-contacts: filling the account with ${CONTACTS} contacts (insertMany)`);
    await fillContacts(store, account, 0, CONTACTS);

    const get = async (query: string) => {
      const t0 = performance.now();
      const response = await fetch(`${base}/v2/${account}/contacts?${query}`, { headers: { authorization: `Bearer ${apiKey}` } });
      const body = await response.json() as { data: unknown[]; paging: { total: number } };
      if (!response.ok || body.data.length === 0) throw new Error(`GET /contacts?${query}: HTTP ${response.status}`);
      return { ms: performance.now() - t0, total: body.paging.total };
    };
    const requests = async (query: string) => {
      await get(query); // the first one warms the store's plan for it
      const times: number[] = [];
      let total = 0;
      for (let i = 0; i < REQUESTS; i++) ({ ms: times[i], total } = await get(query));
      return { ...summary(times), total };
    };
    log('console-contacts: the API calls the page makes');
    const firstPage = await requests(FIRST_PAGE);
    const filtered = await requests(`${FIRST_PAGE}&filter[state]=active&filter[list]=2`);
    const search = await requests(`${FIRST_PAGE}&q=*person99*`);

    const executablePath = findExecutable(HEADLESS_CHROMIUM);
    let browserFigures: Record<string, unknown> = { skipped: `Chromium is not installed (apt-get install ${HEADLESS_CHROMIUM})` };
    if (executablePath) {
      log('console-contacts: the page in Chromium');
      const browser = await chromium.launch({ executablePath, args: process.getuid?.() === 0 ? ['--no-sandbox'] : [] });
      teardown.defer('browser', () => browser.close());
      const login = await (await fetch(`${base}/v2/login`, {
        method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ user: 'viewer@bench.test', password }),
      })).json() as { data: { token: string; user: string; account: string; acl: Record<string, string[]> } };
      const session = { token: login.data.token, account, user: login.data.user, permissions: login.data.acl[account] };
      const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
      // Signed in as the sign-in page leaves it (console/src/session.ts), so each load is the contacts page alone.
      await context.addInitScript(`sessionStorage.setItem('herald.session', ${JSON.stringify(JSON.stringify(session))});`);
      const page = await context.newPage();
      /** A full navigation until the first row's link (an email starting with `prefix`) is on screen. */
      const show = async (url: string, prefix: string) => {
        const t0 = performance.now();
        await page.goto(url);
        await page.locator('tbody tr').first().getByRole('link', { name: new RegExp(`^${prefix}`) }).waitFor();
        return performance.now() - t0;
      };
      await show(`${base}/console/contacts`, 'person0@example.org'); // the browser's cache warm: what a person returning sees
      const loads: number[] = [];
      const searches: number[] = [];
      for (let i = 0; i < PAGE_LOADS; i++) {
        loads.push(await show(`${base}/console/contacts`, 'person0@example.org'));
        searches.push(await show(`${base}/console/contacts?q=person99&state=active`, 'person99'));
      }
      browserFigures = { open_to_rows: summary(loads), search_to_rows: summary(searches) };
    }

    return {
      scenario: 'console-contacts',
      contacts: CONTACTS,
      api_first_page: firstPage,
      api_filtered_page: filtered,
      api_search_page: search,
      browser: browserFigures,
      notes: `H2 file (npm start's store); the API on its own thread; ${CONTACTS} contacts inserted through the store. api_*: ${REQUESTS} sequential GET /contacts ` +
        `as the console asks for them (${FIRST_PAGE}; filtered: state active and list 2; search: q=*person99*), after one warm-up each. browser: Chromium ` +
        `at 1280x800, a full navigation to /console/contacts (HTML, hashed script from cache, session check and the page; the filters' lists and interests are asked for after the rows) until the first ` +
        `row's link is on screen, ${PAGE_LOADS} times each, after one warm-up load; search: /console/contacts?q=person99&state=active.`,
    };
  } finally {
    await teardown.run();
  }
}
