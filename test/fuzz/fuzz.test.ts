// Fuzzing in the test suite: a bounded campaign per endpoint against the real running service.
// `npm run fuzz` runs the same with more inputs and time (HERALD_FUZZ_RUNS, HERALD_FUZZ_SECONDS).
import Ajv from 'ajv';
import addFormats from 'ajv-formats';
import { sendSchema } from '../../api/transactional/send-schema';
import { checkStructure } from '../../core/limits';
import { isAllowedCustomHeader } from '../../core/transactional/headers';
import { readHttpBody } from '../../core/transactional/request';
import { startTestHerald, type TestHerald } from '../support/herald';
import { runCampaign, type CampaignResult } from './campaign';
import { FUZZ_TARGETS } from './targets';

const RUNS = Number(process.env.HERALD_FUZZ_RUNS ?? 400);
const SECONDS = Number(process.env.HERALD_FUZZ_SECONDS ?? 60);
jest.setTimeout((SECONDS * FUZZ_TARGETS.length + 120) * 1000);

let herald: TestHerald;
beforeAll(async () => { herald = await startTestHerald(); });
afterAll(() => herald?.stop());

// The schema as a judge: without removeAdditional, a stored key the schema does not name fails.
const strictAjv = new Ajv({ allErrors: true, strict: true, allowUnionTypes: true });
addFormats(strictAjv, ['email']);
const storedBodyIsValid = strictAjv.compile(sendSchema);

it('keeps every rule under fuzzed input: no 5xx, JSON in the interface shape, store up, only validated fields stored', async () => {
  const account = await herald.newAccount();
  const results: CampaignResult[] = [];
  for (const target of FUZZ_TARGETS) {
    results.push(await runCampaign(target, {
      baseUrl: herald.baseUrl,
      credentials: { transactional: account.transactionalKey, api: account.apiKey },
      runs: RUNS,
      timeLimitMs: SECONDS * 1000,
      seed: process.env.HERALD_FUZZ_SEED ? Number(process.env.HERALD_FUZZ_SEED) : undefined,
    }));
  }
  process.stdout.write(`${JSON.stringify({ fuzz: results.map(({ target, runs, statuses }) => ({ target, runs, statuses })) })}\n`);
  for (const result of results) expect(result.failure).toBeUndefined();
  for (const result of results) expect(result.runs).toBeGreaterThan(Math.min(RUNS, 50));

  // The store and the service are still up.
  expect(await herald.services.store.db.command({ ping: 1 })).toMatchObject({ ok: 1 });
  expect((await fetch(`${herald.baseUrl}/readyz`)).status).toBe(200);

  // Nothing outside the schema reached the store.
  const stored = await herald.services.store.sendRequests.find({ account: account.account }).toArray();
  expect(stored.length).toBeGreaterThan(0); // some fuzzed bodies are valid and accepted
  for (const doc of stored) {
    expect(Object.keys(doc).sort()).toEqual(['_id', 'acceptedAt', 'account', 'payload', 'source']);
    const body = readHttpBody(doc);
    expect(() => checkStructure(body)).not.toThrow();
    if (!storedBodyIsValid(body)) throw new Error(`stored body outside the schema: ${JSON.stringify(storedBodyIsValid.errors)}`);
    for (const name of Object.keys(body.headers ?? {})) expect(isAllowedCustomHeader(name)).toBe(true);
  }
});
