// Lets Node's own require load the project's TypeScript, compiled by swc as the tests' jest
// transform compiles it: for the jest worker's shared stack (./worker-stack.ts), which lives in
// the worker's realm, outside jest's module registries and their transform, and loads modules
// when first used (composition/herald.ts imports the API and the worker on demand).
import { transformSync } from '@swc/core';
import { addHook } from 'pirates';

let installed = false;

export function installTsRequireHook(): void {
  if (installed) return;
  installed = true;
  addHook((code, filename) => transformSync(code, {
    filename, swcrc: false, sourceMaps: 'inline', module: { type: 'commonjs' }, jsc: { parser: { syntax: 'typescript' }, target: 'es2022' },
  }).code, { exts: ['.ts'], ignoreNodeModules: true });
}
