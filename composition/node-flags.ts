// The V8 limits a worker process runs with. Left to its defaults, V8 lets a busy worker's heap grow
// to hundreds of MB of garbage between collections: a 100k-recipient campaign peaked at ~390 MB of
// RSS, and at ~245 MB with these limits, for the same CPU per message (docs/benchmarks.md,
// campaign-send). A worker's live data stays far below them (its largest, a webhook delivery
// page, is ~40 MB). Node takes them on its command line only, so each place that starts a worker
// gives them: `npm start` and `npm run start:worker` (package.json), compose's worker service,
// and the benches and tests that start one; test/unit/node-flags.test.ts and compose.test.ts check
// that they agree.
export const WORKER_NODE_FLAGS: readonly string[] = ['--max-old-space-size=192', '--max-semi-space-size=4'];
