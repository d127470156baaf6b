// The worker's V8 limits (composition/node-flags.ts) are given wherever a worker starts: the
// package scripts and compose's worker service say exactly those flags.
import fs from 'node:fs';
import path from 'node:path';
import { WORKER_NODE_FLAGS } from '../../composition/node-flags';

const root = path.resolve(__dirname, '../..');

it('is what npm start, npm run start:worker and compose\'s worker service run with', () => {
  const { scripts } = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
  expect(scripts.start).toContain(`node ${WORKER_NODE_FLAGS.join(' ')} dist/start.js`);
  expect(scripts['start:worker']).toBe(`node ${WORKER_NODE_FLAGS.join(' ')} dist/worker.js`);
  const compose = fs.readFileSync(path.join(root, 'docker/compose.yaml'), 'utf8');
  const worker = compose.slice(compose.indexOf('\n  worker:'));
  const command = JSON.parse(/\n {4}command: (\[.*\])/.exec(worker)![1]) as string[];
  expect(command).toEqual(['node', ...WORKER_NODE_FLAGS, 'dist/worker.js']);
});
