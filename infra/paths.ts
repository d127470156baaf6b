import path from 'node:path';

/** The project folder (works from sources and from dist/). */
export const projectRoot = findRoot(__dirname);

/** Where the project's own installers put Temporal, the store's jars and the Python venv. */
export const toolsDir = process.env.HERALD_TOOLS_DIR
  ? path.resolve(process.env.HERALD_TOOLS_DIR)
  : path.join(projectRoot, '.tools');

function findRoot(start: string): string {
  // dist/infra/paths.js and infra/paths.ts both sit one or two levels below the root.
  const parent = path.resolve(start, '..');
  return path.basename(parent) === 'dist' ? path.resolve(parent, '..') : parent;
}
