import path from 'node:path';

/** The project folder (works from sources and from dist/). */
export const projectRoot = findRoot(__dirname);

function findRoot(start: string): string {
  // dist/core/project-root.js and adapters/project-root.ts both sit one or two levels below the root.
  const parent = path.resolve(start, '..');
  return path.basename(parent) === 'dist' ? path.resolve(parent, '..') : parent;
}

/**
 * The file a worker thread runs for the module at `file`: the module itself when it is compiled,
 * its dist/ counterpart when it is TypeScript (under Jest), which a thread cannot load. `npm test`
 * builds dist/ before Jest starts.
 */
export function threadScript(file: string): string {
  if (!file.endsWith('.ts')) return file;
  return path.join(projectRoot, 'dist', path.relative(projectRoot, file).replace(/\.ts$/, '.js'));
}
