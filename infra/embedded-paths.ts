import path from 'node:path';

/** Where each embedded service keeps its data and log inside a data folder. */
export function embeddedPaths(dataDir: string) {
  return {
    storeFile: path.join(dataDir, 'store', 'herald.mv.db'),
    temporalDb: path.join(dataDir, 'temporal', 'temporal.db'),
    mailDir: path.join(dataDir, 'mail'),
    logDir: path.join(dataDir, 'logs'),
    log: (name: string) => path.join(dataDir, 'logs', `${name}.log`),
  };
}
