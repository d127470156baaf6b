import path from 'node:path';

/** The project folder (works from sources and from dist/). */
export const projectRoot = findRoot(__dirname);

function findRoot(start: string): string {
  // dist/core/project-root.js and core/project-root.ts both sit one or two levels below the root.
  const parent = path.resolve(start, '..');
  return path.basename(parent) === 'dist' ? path.resolve(parent, '..') : parent;
}
