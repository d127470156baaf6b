// The embedded store answers each request from a consistent snapshot: 20 clients incrementing
// one counter with findOneAndUpdate each get their own value (per-account ids depend on it).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { nextId } from '../../adapters/store/counters';
import { connectStore } from '../../adapters/store/store';
import { startEmbeddedStore } from '../../infra/store';

jest.setTimeout(120_000);

it.each([['memory', false], ['file with durable commits', true]])('gives every concurrent nextId its own id (%s)', async (_label, onFile) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'herald-atomic-'));
  const embedded = await startEmbeddedStore({ file: onFile ? path.join(dir, 'store.mv.db') : null, logFile: path.join(dir, 'store.log'), shortLived: true });
  const store = await connectStore(embedded.uri, 'atomicity');
  try {
    const ids: number[] = [];
    let started = 0;
    await Promise.all(Array.from({ length: 20 }, async () => {
      while (started < 1000) {
        started += 1;
        ids.push(await nextId(store, 'acct', 'things'));
      }
    }));
    expect(ids).toHaveLength(1000);
    expect(new Set(ids).size).toBe(1000);
    expect(Math.max(...ids)).toBe(1000);
  } finally {
    await store.close();
    await embedded.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
