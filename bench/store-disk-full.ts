// The store on a disk that fills up (issue 39's soak found acknowledged writes lost): 12 clients
// insert into 6 collections of a store on its own tmpfs (as root) while the store is restarted
// whenever it exits, as a supervisor would; after 50 s the disk is filled for 60 s, then freed.
// At the end every acknowledged insert must be in the store (`lost` 0). Before the store refused
// to open on a full disk (infra/store/HeraldStore.java), restarts that opened the file there and
// failed to write made a later open recover an older version: 63-215 acknowledged inserts lost,
// 3 runs out of 3.
import path from 'node:path';
import { MongoClient } from 'mongodb';
import { freePort } from '../infra/ports';
import { startEmbeddedStore, type EmbeddedStore } from '../infra/store';
import { soakDisk } from './soak/disk';
import { log } from './support';

const WRITERS = 12;
const COLLECTIONS = 6;
const BEFORE_FULL_MS = 50_000;
const FULL_MS = 60_000;
const AFTER_MS = 20_000;
const DISK_MB = 600;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export async function runStoreDiskFull(): Promise<Record<string, unknown>> {
  const disk = soakDisk(path.join('/tmp', `herald-bench-disk-full-${process.pid}`), DISK_MB);
  if (disk.unavailable) {
    disk.remove();
    return { scenario: 'store-disk-full', skipped: disk.unavailable };
  }
  const file = path.join(disk.dir, 'store', 'herald.mv.db');
  const logFile = path.join(disk.dir, 'store.log'); // on the same disk, as Herald's logs are
  const port = await freePort();
  let store: EmbeddedStore | undefined;
  let stopping = false;
  let exits = 0;
  let refusedStarts = 0;
  // The supervisor: a store that exits is started again a second later; a refused start too.
  const supervising = (async () => {
    while (!stopping) {
      try {
        store = await startEmbeddedStore({ file, logFile, port });
      } catch {
        refusedStarts += 1;
        await sleep(1000);
        continue;
      }
      const running = store;
      const ended = await Promise.race([running.exited.then(() => true), (async () => { while (!stopping) await sleep(100); return false; })()]);
      if (!ended) return running.stop();
      exits += 1;
      await sleep(1000);
    }
  })();
  while (!store) await sleep(100);

  const client = new MongoClient(`mongodb://127.0.0.1:${port}/`, { serverSelectionTimeoutMS: 2000, retryWrites: false });
  const acknowledged = new Map<string, number[]>();
  let next = 0;
  let refusedWrites = 0;
  let writing = true;
  const pad = 'x'.repeat(600);
  const writers = Array.from({ length: WRITERS }, async (_, w) => {
    const name = `c${w % COLLECTIONS}`;
    const ids = acknowledged.get(name) ?? [];
    acknowledged.set(name, ids);
    while (writing) {
      const id = ++next;
      try {
        await client.db('diskfull').collection<{ _id: number; pad: string }>(name).insertOne({ _id: id, pad });
        ids.push(id);
      } catch {
        refusedWrites += 1;
        await sleep(50);
      }
    }
  });
  log('store-disk-full: writing');
  await sleep(BEFORE_FULL_MS);
  disk.fill();
  log('store-disk-full: disk full');
  await sleep(FULL_MS);
  disk.free();
  log('store-disk-full: disk freed');
  await sleep(AFTER_MS);
  writing = false;
  await Promise.all(writers);
  await client.close(true);
  stopping = true;
  await supervising;

  const check = await startEmbeddedStore({ file, logFile, port });
  const reader = await MongoClient.connect(check.uri);
  let total = 0;
  let lost = 0;
  try {
    for (const [name, ids] of acknowledged) {
      const present = new Set((await reader.db('diskfull').collection<{ _id: number }>(name).find({}, { projection: { _id: 1 } }).toArray()).map((d) => d._id));
      total += ids.length;
      lost += ids.filter((id) => !present.has(id)).length;
    }
  } finally {
    await reader.close();
    await check.stop();
    disk.remove();
  }
  return {
    scenario: 'store-disk-full',
    acknowledged: total, lost, refused_writes: refusedWrites, store_exits: exits, refused_starts: refusedStarts,
    goal_nothing_lost_met: lost === 0,
    notes: `${WRITERS} clients inserting into ${COLLECTIONS} collections of a store on a ${DISK_MB} MB tmpfs, restarted whenever it exits; the disk full from ${BEFORE_FULL_MS / 1000} s for ${FULL_MS / 1000} s; then every acknowledged insert looked for`,
  };
}
