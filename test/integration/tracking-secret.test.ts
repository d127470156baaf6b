// The tracking key is made once in the store and is the same for every process: concurrent
// first callers on separate connections (as the API and the worker are), a later process, and
// the store restarted from its file all see the one key.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { newId } from '../../core/shared/ids';
import { connectStore, type Store } from '../../adapters/store/store';
import { trackingSecret } from '../../core/content/tracking/secret';
import { startEmbeddedStore } from '../../infra/store';

jest.setTimeout(180_000);

const sharedUri = () => process.env.MONGODB_URI!.replace(/\/[^/?]*(\?|$)/, '/$1');

it('is made once, the same for concurrent callers on separate connections, and for a later process', async () => {
  const database = `herald_secret_${newId().slice(0, 8)}`;
  const stores: Store[] = await Promise.all([connectStore(sharedUri(), database), connectStore(sharedUri(), database), connectStore(sharedUri(), database)]);
  try {
    // Three "processes", each asking twice at once before any key exists.
    const secrets = await Promise.all(stores.flatMap((store) => [trackingSecret(store), trackingSecret(store)]));
    expect(secrets[0]).toHaveLength(32);
    for (const secret of secrets) expect(secret.equals(secrets[0])).toBe(true);
    expect(await stores[0].serviceSettings.countDocuments({})).toBe(1);
    // Cached per store: no further read.
    expect(trackingSecret(stores[0])).toBe(trackingSecret(stores[0]));

    const later = await connectStore(sharedUri(), database);
    try {
      expect((await trackingSecret(later)).equals(secrets[0])).toBe(true);
    } finally {
      await later.close();
    }
    // Another database (another Herald) has its own.
    const other = await connectStore(sharedUri(), `${database}_other`);
    try {
      expect((await trackingSecret(other)).equals(secrets[0])).toBe(false);
      await other.db.dropDatabase();
    } finally {
      await other.close();
    }
  } finally {
    await stores[0].db.dropDatabase();
    await Promise.all(stores.map((store) => store.close()));
  }
});

it('survives a restart of the store from its file', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'herald-secret-'));
  const file = path.join(dir, 'store.mv.db');
  const firstRun = async () => {
    const embedded = await startEmbeddedStore({ file, logFile: path.join(dir, 'store.log'), shortLived: true });
    const store = await connectStore(embedded.uri, 'herald');
    try {
      return await trackingSecret(store);
    } finally {
      await store.close();
      await embedded.stop();
    }
  };
  try {
    const first = await firstRun();
    const second = await firstRun();
    expect(second.equals(first)).toBe(true);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

it('is not remembered when the store fails, so the next call tries again', async () => {
  const store = await connectStore(sharedUri(), `herald_secret_${newId().slice(0, 8)}`);
  try {
    const insertOne = store.serviceSettings.insertOne.bind(store.serviceSettings);
    const outage = jest.spyOn(store.serviceSettings, 'insertOne').mockRejectedValueOnce(new Error('store down')).mockImplementation(insertOne);
    await expect(trackingSecret(store)).rejects.toThrow('store down');
    expect(await trackingSecret(store)).toHaveLength(32);
    expect(outage).toHaveBeenCalledTimes(2);
  } finally {
    await store.db.dropDatabase();
    await store.close();
  }
});
