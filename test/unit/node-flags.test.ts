// The worker's V8 limits (composition/node-flags.ts) are given wherever a worker starts: the
// package scripts say exactly those flags (compose's worker service: test/unit/compose.test.ts).
import fs from 'node:fs';
import path from 'node:path';
import { WORKER_NODE_FLAGS } from '../../composition/node-flags';

const root = path.resolve(__dirname, '../..');

it('is what npm start and npm run start:worker run with', () => {
  const { scripts } = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
  expect(scripts.start).toContain(`node ${WORKER_NODE_FLAGS.join(' ')} dist/start.js`);
  expect(scripts['start:worker']).toBe(`node ${WORKER_NODE_FLAGS.join(' ')} dist/worker.js`);
});
