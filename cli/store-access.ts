import type { Config } from '../composition/config';
import { connectStore, type Store } from '../adapters/store/store';
import { embeddedPaths } from '../infra/embedded-paths';
import { readStackRecord } from '../infra/stack-record';
import { startEmbeddedStore } from '../infra/store';

/**
 * The store the CLI works on: MONGODB_URI, else the one a running `npm start` of this data
 * folder serves, else the data folder's embedded store, started just for this command.
 */
export async function openStoreForCli(config: Config): Promise<{ store: Store; close(): Promise<void> }> {
  const uri = config.mongodbUri ?? readStackRecord(config.dataDir)?.mongodbUri;
  if (uri) {
    const store = await connectStore(uri, config.mongodbDatabase);
    return { store, close: () => store.close() };
  }
  const paths = embeddedPaths(config.dataDir);
  const embedded = await startEmbeddedStore({ file: paths.storeFile, logFile: paths.log('store-cli') });
  try {
    const store = await connectStore(embedded.uri, config.mongodbDatabase);
    return {
      store,
      async close() {
        await store.close();
        await embedded.stop();
      },
    };
  } catch (error) {
    await embedded.stop();
    throw error;
  }
}
