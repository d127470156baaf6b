import fs from 'node:fs';
import path from 'node:path';

/** One built file of the console, held in memory (the whole build is ~100 KB). */
export interface ConsoleAsset { body: Buffer; type: string }

export interface ConsoleAssets {
  /** index.html, the console's one page: every console address answers it. */
  index: string | null;
  /** The hashed files under assets/, by name. */
  files: Map<string, ConsoleAsset>;
}

const TYPES: Record<string, string> = {
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.txt': 'text/plain; charset=utf-8',
  '.woff2': 'font/woff2',
  '.svg': 'image/svg+xml',
};

/**
 * Reads the build of scripts/build-console.js (dist/console). A folder that is missing (sources
 * compiled without the console build) gives no index: the console then answers that it is not built.
 */
export function loadConsoleAssets(dir: string): ConsoleAssets {
  const files = new Map<string, ConsoleAsset>();
  const indexFile = path.join(dir, 'index.html');
  if (!fs.existsSync(indexFile)) return { index: null, files };
  const assetsDir = path.join(dir, 'assets');
  for (const name of fs.existsSync(assetsDir) ? fs.readdirSync(assetsDir) : []) {
    const type = TYPES[path.extname(name)];
    if (type) files.set(name, { body: fs.readFileSync(path.join(assetsDir, name)), type });
  }
  return { index: fs.readFileSync(indexFile, 'utf8'), files };
}
