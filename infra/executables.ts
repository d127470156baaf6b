import fs from 'node:fs';
import path from 'node:path';

const isWindows = process.platform === 'win32';

export function isExecutable(file: string): boolean {
  try {
    fs.accessSync(file, fs.constants.X_OK);
    return fs.statSync(file).isFile();
  } catch {
    return false;
  }
}

/** The first executable `name` in `firstDirs`, then on PATH; null when absent. */
export function findExecutable(name: string, firstDirs: string[] = []): string | null {
  const names = isWindows ? [`${name}.exe`, `${name}.cmd`] : [name];
  const dirs = [...firstDirs, ...(process.env.PATH ?? '').split(path.delimiter)].filter(Boolean);
  for (const dir of dirs) {
    for (const candidate of names.map((n) => path.join(dir, n))) if (isExecutable(candidate)) return candidate;
  }
  return null;
}
