import type { Config } from '../composition/config';
import { composeHerald } from '../composition/herald';
import type { Store } from '../adapters/store/store';
import { embeddedPaths } from '../infra/embedded-paths';
import { withStackAddresses } from '../infra/stack-record';
import { startEmbeddedStore } from '../infra/store';

/**
 * The store the CLI works on: MONGODB_URI, else the one a running `npm start` of this data
 * folder serves, else the data folder's embedded store, started just for this command.
 */
export async function openStoreForCli(given: Config): Promise<{ store: Store; close(): Promise<void> }> {
  const config = withStackAddresses(given);
  if (config.mongodbUri) {
    const herald = composeHerald(config);
    return { store: await herald.store(), close: () => herald.close() };
  }
  const paths = embeddedPaths(config.dataDir);
  const embedded = await startEmbeddedStore({ file: paths.storeFile, logFile: paths.log('store-cli'), shortLived: true });
  const herald = composeHerald({ ...config, mongodbUri: embedded.uri });
  try {
    const store = await herald.store();
    return {
      store,
      async close() {
        await herald.close();
        await embedded.stop();
      },
    };
  } catch (error) {
    await embedded.stop();
    throw error;
  }
}
