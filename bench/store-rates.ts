// (d) The embedded store on its own: what a write costs on the memory backend and on the H2 file
// with durable commits (every acknowledged write committed and fsynced, concurrent ones grouped),
// one client and 20 at a time; and whether a send request body is better kept as a nested
// document or as one JSON string. Each figure is a time-boxed run: operations done / time taken.
import fs from 'node:fs';
import path from 'node:path';
import { Collection, MongoClient } from 'mongodb';
import { startEmbeddedStore } from '../infra/store';
import { percentile, perSecond, round } from './stats';
import { log, runPool, Teardown } from './support';

const PHASE_MS = 3000;
const CONCURRENCY = 20;
const COUNTERS = 100; // upserts spread over this many keys, as per-account counters are

interface Phase { per_s: number; p50_ms: number; p99_ms: number; errors: number }

/**
 * Runs op for PHASE_MS with `concurrency` in flight (runPool stops at its deadline) and reports the
 * rate and latencies. The few operations still in flight at the deadline finish during the pause.
 */
async function phase(concurrency: number, op: (i: number) => Promise<unknown>): Promise<Phase> {
  const started = performance.now();
  const pool = await runPool(1e9, concurrency, PHASE_MS, async (i) => {
    const t0 = performance.now();
    await op(i);
    return performance.now() - t0;
  });
  const elapsed = performance.now() - started;
  await new Promise((r) => setTimeout(r, 300));
  if (pool.firstError) log(`store-rates: ${pool.errors} errors, first: ${pool.firstError}`);
  return {
    per_s: perSecond(pool.results.length, elapsed),
    p50_ms: round(percentile(pool.results, 50), 2),
    p99_ms: round(percentile(pool.results, 99), 2),
    errors: pool.errors,
  };
}

type Doc = { _id: string; [field: string]: unknown };

/** insertOne and $inc upserts, one client then 20 at a time, on a fresh database. */
async function writeRates(client: MongoClient, label: string): Promise<Record<string, Phase>> {
  const db = client.db('bench_store_rates');
  const events = db.collection<Doc>('events');
  const counters = db.collection<{ _id: string; n: number }>('counters');
  let seq = 0; // unique _ids across phases
  const insert = () => events.insertOne({ _id: `e${seq++}`, account: 'bench', kind: 'delivered', at: new Date() });
  const upsert = (i: number) => counters.findOneAndUpdate({ _id: `c${i % COUNTERS}` }, { $inc: { n: 1 } }, { upsert: true });
  log(`store-rates: ${label}: warm-up`);
  await phase(CONCURRENCY, (i) => (i % 2 ? insert() : upsert(i)));
  const out: Record<string, Phase> = {};
  for (const [name, concurrency, op] of [
    ['insert_1', 1, insert], ['upsert_1', 1, upsert],
    [`insert_${CONCURRENCY}`, CONCURRENCY, insert], [`upsert_${CONCURRENCY}`, CONCURRENCY, upsert],
  ] as const) {
    log(`store-rates: ${label}: ${name}`);
    out[name] = await phase(concurrency, op);
  }
  return out;
}

/**
 * What durable replies cost readers: one client reads by _id, in turn, from the collection
 * CONCURRENCY clients keep upserting into and from one nobody writes. On the file, a read of a
 * collection with writes not yet on disk waits for their commit (infra/store/PendingWrites.java),
 * so that no reader sees what a crash could undo; a read of another collection does not wait.
 */
async function readsBesideUpserts(client: MongoClient): Promise<Record<string, unknown>> {
  const db = client.db('bench_store_reads');
  const written = db.collection<{ _id: string; n: number }>('written');
  const quiet = db.collection<{ _id: string; n: number }>('quiet');
  await Promise.all([written.insertOne({ _id: 'r', n: 0 }), quiet.insertOne({ _id: 'r', n: 0 })]);
  const times = { written: [] as number[], quiet: [] as number[] };
  let upserts = 0;
  let reading = true;
  const reader = (async () => {
    while (reading) {
      for (const [name, collection] of [['written', written], ['quiet', quiet]] as const) {
        const t0 = performance.now();
        await collection.findOne({ _id: 'r' });
        times[name].push(performance.now() - t0);
      }
    }
  })();
  const started = performance.now();
  await runPool(1e9, CONCURRENCY, PHASE_MS, async (i) => {
    await written.findOneAndUpdate({ _id: `c${i % COUNTERS}` }, { $inc: { n: 1 } }, { upsert: true });
    upserts += 1;
  });
  const elapsed = performance.now() - started;
  reading = false;
  await reader;
  const latency = (values: number[]) => ({ p50_ms: round(percentile(values, 50), 2), p99_ms: round(percentile(values, 99), 2) });
  return { upserts_per_s: perSecond(upserts, elapsed), read_written_collection: latency(times.written), read_other_collection: latency(times.quiet) };
}

/**
 * A transactional send request as the API receives it: 50 recipients with to/cc, substitutions
 * nested 3-4 levels, custom_args and tags (~30 KB of JSON).
 */
function sendRequestBody(i: number): Record<string, unknown> {
  const recipients = Array.from({ length: 50 }, (_, r) => ({
    to: [{ email: `customer${i}-${r}@example.test`, name: `Customer ${r}` }],
    cc: [{ email: `account-manager${r % 7}@example.test`, name: `Account manager ${r % 7}` }],
    substitutions: {
      customer: { first_name: `Ann${r}`, last_name: 'Example', address: { street: `${r} Main Street`, city: 'Springfield', geo: { lat: 39.78, lng: -89.65 } } },
      order: {
        id: `ORD-${i}-${r}`, total: { amount: 129.9 + r, currency: 'EUR' },
        items: [1, 2, 3].map((n) => ({ sku: `SKU-${n}${r}`, name: `Product ${n}`, quantity: n, price: { amount: 19.99 * n, currency: 'EUR' } })),
      },
    },
    custom_args: { customer_id: `cus_${i}_${r}`, segment: r % 3 ? 'returning' : 'new' },
  }));
  return {
    from: { email: 'orders@shop.example.test', name: 'Example Shop' },
    reply_to: { email: 'support@shop.example.test' },
    subject: 'Your order {{order.id}} has shipped',
    content: {
      html: '<p>Hello {{customer.first_name}},</p><p>Your order {{order.id}} ({{order.total.amount}} {{order.total.currency}}) is on its way.</p>',
      text: 'Hello {{customer.first_name}}, your order {{order.id}} is on its way.',
    },
    recipients,
    custom_args: { campaign: 'shipping-confirmation', batch: `b${i}` },
    tags: ['transactional', 'shipping', `batch-${i % 10}`],
    tracking: { opens: true, clicks: true },
  };
}

/** The same request body stored as a nested document and as one JSON string: insert and read rates. */
async function bodyFormats(client: MongoClient): Promise<Record<string, unknown>> {
  const db = client.db('bench_store_formats');
  const sample = sendRequestBody(0);
  const out: Record<string, unknown> = { body_json_kb: round(JSON.stringify(sample).length / 1024) };
  for (const format of ['nested', 'json'] as const) {
    const docs: Collection<Doc> = db.collection<Doc>(format);
    let inserted = 0;
    log(`store-rates: body as ${format}: insert, ${CONCURRENCY} at a time`);
    // Built per request, as the API does (not one shared object).
    out[`${format}_insert`] = await phase(CONCURRENCY, () => {
      const body = sendRequestBody(inserted);
      return docs.insertOne({ _id: `r${inserted++}`, account: 'bench', body: format === 'json' ? JSON.stringify(body) : body });
    });
    log(`store-rates: body as ${format}: findOne by _id${format === 'json' ? ' + JSON.parse' : ''}, one client`);
    out[`${format}_read`] = await phase(1, async (i) => {
      const doc = await docs.findOne({ _id: `r${(i * 7919) % inserted}` });
      if (!doc) throw new Error('missing document');
      const body = format === 'json' ? JSON.parse(doc.body as string) as Record<string, unknown> : doc.body as Record<string, unknown>;
      if (!Array.isArray(body.recipients)) throw new Error('body without recipients');
    });
  }
  return out;
}

const LOOKUP_DOCS = 20_000;
const LOOKUP_IDS = 1000;

/**
 * An account-scoped read of 1000 ids ({_id: {$in}, account}, the send activity's ledger read)
 * beside the same ids alone ({_id: {$in}}, the store's own index path), in a 20k-document
 * collection: the two should cost the same (infra/store/IndexLookups.java).
 */
async function scopedLookups(client: MongoClient): Promise<Record<string, Phase>> {
  const docs = client.db('bench_store_lookups').collection<Doc>('messages');
  for (let at = 0; at < LOOKUP_DOCS; at += 1000) {
    await docs.insertMany(Array.from({ length: 1000 }, (_, i) => ({ _id: `m${at + i}`, account: `a${(at + i) % 10}`, status: 'sent' })));
  }
  const ids = (i: number) => Array.from({ length: LOOKUP_IDS }, (_, k) => `m${((i * 7919 + k) * 10) % LOOKUP_DOCS}`); // all of account a0
  const out: Record<string, Phase> = {};
  log('store-rates: 1000-id reads, by _id alone and scoped to the account');
  out.ids_1000 = await phase(1, (i) => docs.find({ _id: { $in: ids(i) } }).toArray());
  out.ids_1000_scoped = await phase(1, (i) => docs.find({ _id: { $in: ids(i) }, account: 'a0' }).toArray());
  await docs.drop();
  return out;
}

const fileMb = (dir: string) => round((fs.statSync(path.join(dir, 'store.mv.db'), { throwIfNoEntry: false })?.size ?? 0) / 1e6);

export async function runStoreRates(): Promise<Record<string, unknown>> {
  const teardown = new Teardown();
  try {
    const dir = teardown.tempDir('herald-bench-store-');
    const backends: Record<string, unknown> = {};
    let formats: Record<string, unknown> = {};
    let reads: Record<string, unknown> = {};
    for (const backend of ['memory', 'file'] as const) {
      log(`store-rates: starting the store (${backend})`);
      const store = await startEmbeddedStore({
        file: backend === 'file' ? path.join(dir, 'store.mv.db') : null,
        logFile: path.join(dir, `store-${backend}.log`),
      });
      teardown.defer(`store (${backend})`, () => store.stop());
      const client = await MongoClient.connect(store.uri, { maxPoolSize: CONCURRENCY, serverSelectionTimeoutMS: 5000 });
      teardown.defer(`client (${backend})`, () => client.close());
      backends[backend] = { ...await writeRates(client, backend), ...await scopedLookups(client) };
      if (backend === 'file') {
        log(`store-rates: file: reads beside ${CONCURRENCY} upserting clients`);
        reads = await readsBesideUpserts(client);
        formats = await bodyFormats(client);
      }
      const openMb = fileMb(dir);
      await client.close();
      await store.stop(); // one JVM at a time on two cores
      // A commit per write leaves old chunks that MVStore reuses only after 45 s; closing compacts.
      if (backend === 'file') Object.assign(formats, { file_mb_open: openMb, file_mb_closed: fileMb(dir) });
    }
    return {
      scenario: 'store-rates',
      memory: backends.memory,
      file_durable: backends.file,
      file_reads_beside_upserts: reads,
      body_format_file: formats,
      notes: `per_s = operations completed in ${PHASE_MS / 1000} s runs after a warm-up; _1 = one client in sequence, ` +
        `_${CONCURRENCY} = ${CONCURRENCY} in flight over ${CONCURRENCY} connections; insert = insertOne of a ~100 B event, ` +
        `upsert = findOneAndUpdate $inc upsert over ${COUNTERS} counter keys; file = H2 file, each write committed and fsynced ` +
        'before its reply (concurrent writes share a commit); file_reads_beside_upserts: one client reading by _id, in turn, from ' +
        `the collection ${CONCURRENCY} clients upsert into (its reads wait for those writes to be on disk) and from another; ` +
        'body_format_file: a 50-recipient send request stored as a nested document vs one JSON string, inserted 20 at a time, read back by _id (JSON.parse included) by one client; ' +
        `ids_1000 = find of ${LOOKUP_IDS} ids by {_id: {$in}} in a ${LOOKUP_DOCS / 1000}k-document collection, _scoped = the same with account (as every account-scoped read), one client; ` +
        'file_mb_open/closed: the H2 file after all file phases, before and after the store closed (and compacted) it',
    };
  } finally {
    await teardown.run();
  }
}
