// A contacts import end to end: 100k generated rows (email, names, two custom fields) uploaded over
// HTTP, imported into a list through POST /contacts/import, the task polled until FINISHED; on the
// store `npm start` runs (H2 file, durable commits), then on the tests' memory backend, with
// Temporal on a SQLite file. Beside each, measured in the same run on the same store: the store's
// own bulk insert rate (insertMany of the same contact documents, 1000 at a time); and the CPU time
// of reading and checking the rows alone.
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { createAccount } from '../core/accounts/accounts';
import { loadConfig } from '../composition/config';
import { composeHerald } from '../composition/herald';
import { newContact } from '../core/contacts/changes';
import { inferColumns } from '../core/contacts/import/options';
import { prepareRow, rowRules } from '../core/contacts/import/rows';
import { sampleRecords } from '../core/contacts/import/source';
import { createLogger } from '../adapters/logger';
import { connectStore, type FieldDoc, type Store } from '../adapters/store/store';
import { startEmbeddedStore } from '../infra/store';
import { startEmbeddedTemporal } from '../infra/temporal';
import { perSecond, round } from './stats';
import { log, Teardown } from './support';

const ROWS = 100_000;
const WARM_UP_ROWS = 10_000;
const BATCH = 1000;

function csvOf(rows: number, prefix: string): string {
  const lines = ['email,First name,Last name,City,Birthday'];
  for (let i = 0; i < rows; i++) lines.push(`${prefix}${i}@example.com,Name${i},Surname${i % 977},City ${i % 50},${1950 + (i % 50)}-0${1 + (i % 9)}-1${i % 10}`);
  return `${lines.join('\n')}\n`;
}

/**
 * The store alone: insertMany of `rows` contact documents as the import builds them, BATCH at a
 * time, one after the other; only the calls are timed (the documents are built between them).
 */
async function storeBulkInserts(store: Store, account: string, rows: number): Promise<number> {
  let storeMs = 0;
  for (let from = 0; from < rows; from += BATCH) {
    const now = new Date();
    const docs = Array.from({ length: Math.min(BATCH, rows - from) }, (_, k) => newContact(account, from + k + 1, {
      email: `ref${from + k}@example.com`, firstName: `Name${k}`, lastName: 'Ref', lists: [1],
      customFields: [{ id: 10, value: `City ${k % 50}` }, { id: 11, value: '1970-01-01' }],
    }, 'IMPORTED_CSV', now));
    const t0 = performance.now();
    await store.contacts.insertMany(docs, { ordered: false });
    storeMs += performance.now() - t0;
  }
  return perSecond(rows, storeMs);
}

/** The import's own CPU work without the store: csv-parse and the row checks, over the same text. */
function parseAndCheck(csv: string, fields: FieldDoc[]): { rows_per_s: number; seconds: number } {
  const started = performance.now();
  const { options } = inferColumns({}, csv.slice(0, 64 * 1024), fields);
  const rules = rowRules({ ...options, normalizeCase: false, dateFormat: null } as Parameters<typeof rowRules>[0], new Map(fields.map((f) => [f.id, f])));
  const records = sampleRecords(csv, options.columnSeparator, options.stringDelimiter, Number.MAX_SAFE_INTEGER);
  let valid = 0;
  for (const record of records.slice(1)) if (prepareRow(record.cells, rules).problems.length === 0) valid++;
  if (valid !== records.length - 1) throw new Error(`only ${valid} valid rows`);
  const ms = performance.now() - started;
  return { rows_per_s: perSecond(valid, ms), seconds: round(ms / 1000, 2) };
}

interface Stack { store: Store; base: string; headers: Record<string, string>; account: string }

/** Herald (worker and API in this process) on a store, with an account, a list and two custom fields. */
async function startHerald(storeUri: string, temporalAddress: string, queue: string, teardown: Teardown): Promise<Stack> {
  // No mail is sent: the relay is an address where nothing listens.
  const config = loadConfig({
    ...process.env, MONGODB_URI: storeUri, TEMPORAL_ADDRESS: temporalAddress, SMTP_RELAY_URL: 'smtp://127.0.0.1:1',
    HERALD_MONGODB_DATABASE: 'herald_bench_import', HERALD_TASK_QUEUE: queue, HERALD_MTA_HOST: 'herald.bench', HERALD_LOG_LEVEL: 'silent',
  });
  const herald = composeHerald(config, { logger: createLogger('silent') });
  teardown.defer('herald', () => herald.close());
  void (await herald.worker()).run();
  const api = await herald.apiServer();
  await new Promise<void>((resolve) => api.listen(0, '127.0.0.1', resolve));
  const store = await herald.store();
  const { account, apiKey } = await createAccount(store, 'benchimport');
  const stack = { store, base: `http://127.0.0.1:${(api.address() as AddressInfo).port}`, headers: { authorization: `Bearer ${apiKey}` }, account };
  await call(stack, 'POST', '/lists', { name: 'Imported' });
  await call(stack, 'POST', '/fields', { name: 'City', format: 'TEXT' });
  await call(stack, 'POST', '/fields', { name: 'Birthday', format: 'DATE' });
  return stack;
}

async function call(stack: Stack, method: string, route: string, body?: unknown): Promise<{ data?: unknown; task?: { id: number } }> {
  const res = await fetch(`${stack.base}/v2/${stack.account}${route}`, {
    method, headers: { ...stack.headers, 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body),
  });
  const json = await res.json() as { data?: unknown; task?: { id: number } };
  if (res.status >= 300) throw new Error(`${method} ${route}: HTTP ${res.status} ${JSON.stringify(json).slice(0, 300)}`);
  return json;
}

interface TaskView { state: string; init: string; end: string; result: { created: number; errors: number } }

/** Upload, import into the list, poll the task every 100 ms until it settles. */
async function importFile(stack: Stack, csv: string) {
  const t0 = performance.now();
  const form = new FormData();
  form.append('fileToUpload', new Blob([csv], { type: 'text/csv' }), 'people.csv');
  const uploaded = await fetch(`${stack.base}/v2/${stack.account}/contacts/import/upload`, { method: 'POST', headers: stack.headers, body: form });
  const { data } = await uploaded.json() as { data: { id: string } };
  const t1 = performance.now();
  const { task } = await call(stack, 'POST', '/contacts/import', { sourceFile: data.id, list: 1 });
  for (const deadline = Date.now() + 600_000; ;) {
    const state = (await call(stack, 'GET', `/tasks/${task!.id}`)).data as TaskView;
    if (Date.now() > deadline) throw new Error(`import still ${state.state} after 10 minutes: ${JSON.stringify(state)}`);
    if (!['QUEUED', 'INITIALIZING', 'PROCESSING'].includes(state.state)) {
      if (state.state !== 'FINISHED') throw new Error(`import ended ${state.state}: ${JSON.stringify(state)}`);
      return { uploadMs: t1 - t0, importMs: performance.now() - t1, taskMs: Date.parse(state.end) - Date.parse(state.init), result: state.result };
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** The import on one backend of the store, beside that store's own bulk insert rate. */
async function measureOn(backend: 'file' | 'memory', dir: string, temporalAddress: string, csv: string): Promise<Record<string, unknown>> {
  const teardown = new Teardown();
  try {
    log(`contacts-import: ${backend}: starting the store and Herald`);
    const embedded = await startEmbeddedStore({ file: backend === 'file' ? path.join(dir, 'store.mv.db') : null, logFile: path.join(dir, `store-${backend}.log`) });
    teardown.defer(`store (${backend})`, () => embedded.stop());
    const stack = await startHerald(embedded.uri, temporalAddress, `herald-bench-import-${backend}`, teardown);
    // The reference writes to a database of its own on the same store (same JVM, same file, an empty
    // collection with the same indexes), dropped afterwards: the memory backend holds everything in its 1 GB heap.
    const reference = async (database: string, rows: number) => {
      const own = await connectStore(embedded.uri, database);
      try {
        return await storeBulkInserts(own, 'benchref', rows);
      } finally {
        await own.db.dropDatabase();
        await own.close();
      }
    };
    log(`contacts-import: ${backend}: warm-up (an import of ${WARM_UP_ROWS} rows, ${WARM_UP_ROWS} store inserts)`);
    await importFile(stack, csvOf(WARM_UP_ROWS, 'warm'));
    await reference('herald_bench_warm', WARM_UP_ROWS);
    // The store's JIT keeps speeding up for a while: its rate is measured just before and just after the import.
    log(`contacts-import: ${backend}: the store's own insertMany of ${ROWS} contacts, ${BATCH} at a time`);
    const before = await reference('herald_bench_before', ROWS);
    log(`contacts-import: ${backend}: importing ${ROWS} rows (${round(csv.length / 1e6)} MB) over HTTP`);
    const measured = await importFile(stack, csv);
    if (measured.result.created !== ROWS) throw new Error(`created ${measured.result.created} of ${ROWS}: ${JSON.stringify(measured.result)}`);
    log(`contacts-import: ${backend}: the store's own insertMany again`);
    const after = await reference('herald_bench_after', ROWS);
    const storeRate = round((before + after) / 2);
    const rowsPerS = perSecond(ROWS, measured.importMs);
    return {
      seconds: round(measured.importMs / 1000, 2),
      rows_per_s: rowsPerS,
      task_seconds: round(measured.taskMs / 1000, 2),
      upload_seconds: round(measured.uploadMs / 1000, 2),
      store_bulk_inserts_per_s: storeRate,
      store_bulk_inserts_before_after: [before, after],
      store_seconds_for_the_rows: round(ROWS / storeRate, 2),
      ratio_to_store_bulk_inserts: round(rowsPerS / storeRate, 2),
    };
  } finally {
    await teardown.run();
  }
}

export async function runContactsImport(): Promise<Record<string, unknown>> {
  const teardown = new Teardown();
  try {
    const dir = teardown.tempDir('herald-bench-import-');
    log('contacts-import: starting Temporal (SQLite file)');
    const temporal = await startEmbeddedTemporal({ dbFile: path.join(dir, 'temporal.db'), logFile: path.join(dir, 'temporal.log') });
    teardown.defer('temporal', () => temporal.stop());
    const csv = csvOf(ROWS, 'person');
    const file = await measureOn('file', dir, temporal.address, csv); // one store at a time on two cores
    const memory = await measureOn('memory', dir, temporal.address, csv);
    log('contacts-import: reading and checking the rows alone (no store)');
    const fields = [10, 11].map((id) => ({ _id: `x:${id}`, account: 'x', id, name: id === 10 ? 'City' : 'Birthday', tag: '', format: id === 10 ? 'TEXT' : 'DATE', created: new Date(), lastModified: new Date() }) as FieldDoc);
    return {
      scenario: 'contacts-import',
      rows: ROWS,
      file_mb: round(csv.length / 1e6, 2),
      file_store: file,
      memory_store: memory,
      parse_and_check: parseAndCheck(csv, fields),
      notes: `file_store: the H2 file with durable commits as npm start runs it; memory_store: the tests' backend; Temporal on a SQLite file; ` +
        `worker and API in this process. seconds = POST /contacts/import to the task seen FINISHED (polled every 100 ms), task_seconds = its ` +
        `init to end; upload_seconds = the multipart upload before it. Rows: email, first and last name, a TEXT and a DATE custom field, into ` +
        `one list, all new. store_bulk_inserts_per_s = insertMany of the same contact documents, ${BATCH} per call, one call at a time (only the ` +
        `calls timed), into an empty collection with the same indexes on the same store, the mean of a run just before and one just ` +
        `after the import (the import overlaps reading the next batch with writing one, so it can exceed it); parse_and_check = csv-parse and the row checks alone (sync parser); ` +
        `both sides warmed up with ${WARM_UP_ROWS} rows first`,
    };
  } finally {
    await teardown.run();
  }
}
