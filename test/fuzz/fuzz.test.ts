// Fuzzing against the real running service: a campaign per endpoint, the same rules in two sizes.
// In `npm test` a smoke: SMOKE_RUNS inputs per endpoint from a fixed seed (every endpoint meets
// valid inputs among its first 12), within SMOKE_SECONDS in all. `npm run fuzz` runs the long
// campaign: HERALD_FUZZ_RUNS inputs and HERALD_FUZZ_SECONDS per endpoint, from a random seed.
import Ajv from 'ajv';
import addFormats from 'ajv-formats';
import { sendSchema } from '../../api/transactional/send-schema';
import { checkStructure } from '../../core/shared/limits';
import { isPermission } from '../../core/accounts/permissions';
import { isAllowedCustomHeader } from '../../core/transactional/headers';
import { readHttpBody } from '../../core/transactional/request';
import { createUser } from '../../core/accounts/users';
import { startTestHerald, type TestHerald } from '../support/herald';
import { runCampaign, type CampaignResult } from './campaign';
import { FUZZ_TARGETS } from './targets';

const SMOKE_RUNS = 20;
const SMOKE_SEED = 1;
const SMOKE_SECONDS = 45;
const LONG = process.env.HERALD_FUZZ_SECONDS !== undefined;
const RUNS = Number(process.env.HERALD_FUZZ_RUNS ?? SMOKE_RUNS);
const SECONDS = LONG ? Number(process.env.HERALD_FUZZ_SECONDS) : SMOKE_SECONDS / FUZZ_TARGETS.length;
const SEED = process.env.HERALD_FUZZ_SEED ? Number(process.env.HERALD_FUZZ_SEED) : LONG ? undefined : SMOKE_SEED;
/** Inputs an endpoint must have taken, unless the time limit cut it short (a busy machine). */
const MIN_RUNS = Math.min(RUNS, LONG ? 50 : 12);
jest.setTimeout((SECONDS * FUZZ_TARGETS.length + 120) * 1000);

let herald: TestHerald;
beforeAll(async () => { herald = await startTestHerald(); });
afterAll(() => herald?.stop());

// The schema as a judge: without removeAdditional, a stored key the schema does not name fails.
const strictAjv = new Ajv({ allErrors: true, strict: true, allowUnionTypes: true });
addFormats(strictAjv, ['email']);
const storedBodyIsValid = strictAjv.compile(sendSchema);
const CONTACT_FIELDS = ['_id', 'account', 'created', 'customFields', 'email', 'firstName', 'gender', 'id', 'inactivated', 'interests', 'language',
  'lastAction', 'lastMailed', 'lastModified', 'lastName', 'lists', 'preferredFormat', 'quality', 'source', 'state'];
const USER_FIELDS = new Set(['_id', 'account', 'id', 'email', 'username', 'passwordHash', 'passwordExpired', 'permissions', 'created', 'lastModified']);
const LIST_FIELDS = ['_id', 'account', 'created', 'description', 'id', 'lastMailed', 'lastModified', 'name', 'tags'];
const INTEREST_FIELDS = ['_id', 'account', 'created', 'description', 'expirationDays', 'id', 'lastMailed', 'lastModified', 'name'];
const FIELD_FIELDS = ['_id', 'account', 'created', 'format', 'id', 'lastModified', 'name', 'tag'];
const EXPORT_PARAMETERS = ['fileName', 'interestId', 'listId', 'state'];
const OPTIN_FIELDS = new Set(['_id', 'account', 'listId', 'email', 'firstName', 'lastName', 'interests', 'redirect', 'createdAt', 'expiresAt']);

it('keeps every rule under fuzzed input: no 5xx, JSON in the interface shape, store up, only validated fields stored', async () => {
  const account = await herald.newAccount();
  const known = { account: account.account, apiKey: account.apiKey, email: 'fuzz@example.com', password: 'fuzz password' };
  await createUser(herald.services.store, account.account, { email: known.email, password: known.password });
  const results: CampaignResult[] = [];
  // The smoke's time is shared: what an endpoint leaves unused goes to the ones after it.
  const deadline = Date.now() + SECONDS * FUZZ_TARGETS.length * 1000;
  for (const [index, target] of FUZZ_TARGETS.entries()) {
    results.push(await runCampaign(target, {
      baseUrl: herald.baseUrl,
      known,
      transactionalKey: account.transactionalKey,
      runs: RUNS,
      timeLimitMs: LONG ? SECONDS * 1000 : Math.max(1, deadline - Date.now()) / (FUZZ_TARGETS.length - index),
      seed: SEED,
    }));
  }
  process.stdout.write(`${JSON.stringify({ fuzz: results.map(({ target, runs, statuses, cut }) => ({ target, runs, statuses, ...(cut ? { cut } : {}) })) })}\n`);
  for (const result of results) expect(result.failure).toBeUndefined();
  for (const result of results.filter((r) => !r.cut)) {
    expect(result.runs).toBeGreaterThanOrEqual(MIN_RUNS);
    expect(Object.keys(result.statuses).some((s) => Number(s) < 300)).toBe(true); // some inputs were valid
  }

  // The store and the service are still up.
  expect(await herald.services.store.db.command({ ping: 1 })).toMatchObject({ ok: 1 });
  expect((await fetch(`${herald.baseUrl}/readyz`)).status).toBe(200);

  // Nothing outside the schema reached the store.
  const stored = await herald.services.store.sendRequests.find({ account: account.account }).toArray();
  expect(stored.length).toBeGreaterThan(0); // some fuzzed bodies are valid and accepted
  for (const doc of stored) {
    // Opt-in confirmations (the fuzzed opt-in forms send them) are marked as Herald's own mail.
    const { purpose, launchAt, ...fields } = doc;
    expect(Object.keys(fields).sort()).toEqual(['_id', 'acceptedAt', 'account', 'batchId', 'payload', 'source']);
    expect([undefined, 'optin-confirmation']).toContain(purpose);
    expect(launchAt === undefined || launchAt instanceof Date).toBe(true);
    const body = readHttpBody(doc);
    expect(() => checkStructure(body)).not.toThrow();
    if (!storedBodyIsValid(body)) throw new Error(`stored body outside the schema: ${JSON.stringify(storedBodyIsValid.errors)}`);
    for (const name of Object.keys(body.headers ?? {})) expect(isAllowedCustomHeader(name)).toBe(true);
  }
  const users = await herald.services.store.users.find({ account: account.account }).toArray();
  expect(users.length).toBeGreaterThan(1); // the owner and some fuzzed creates
  for (const user of users) {
    expect(Object.keys(user).every((k) => USER_FIELDS.has(k))).toBe(true);
    expect(user.permissions.every(isPermission)).toBe(true);
    expect(() => checkStructure(user)).not.toThrow();
  }
  const lists = await herald.services.store.lists.find({ account: account.account }).toArray();
  expect(lists.length).toBeGreaterThan(0);
  const chars = (value: unknown) => (typeof value === 'string' ? [...value].length : NaN); // as ajv counts
  for (const list of lists) {
    expect(Object.keys(list).sort()).toEqual(LIST_FIELDS);
    expect(list.name === list.name.trim() && chars(list.name) >= 1 && chars(list.name) <= 100).toBe(true);
    expect(chars(list.description) <= 1000).toBe(true);
    expect(list.tags.length <= 20 && list.tags.every((t) => chars(t) >= 1 && chars(t) <= 50)).toBe(true);
  }
  const contacts = await herald.services.store.contacts.find({ account: account.account }).toArray();
  expect(contacts.length).toBeGreaterThan(0);
  const listIds = new Set(lists.map((l) => l.id));
  for (const contact of contacts) {
    expect(Object.keys(contact).sort()).toEqual(CONTACT_FIELDS);
    expect(contact.email).toBe(contact.email.trim().toLowerCase());
    expect(contact.lists.every((id) => listIds.has(id))).toBe(true);
    expect(Object.values(contact.customFields).every((v) => typeof v === 'string')).toBe(true);
    expect(() => checkStructure(contact)).not.toThrow();
  }
  const interests = await herald.services.store.interests.find({ account: account.account }).toArray();
  expect(interests.length).toBeGreaterThan(0);
  for (const interest of interests) {
    expect(Object.keys(interest).sort()).toEqual(INTEREST_FIELDS);
    expect(Number.isInteger(interest.expirationDays) && interest.expirationDays >= 0).toBe(true);
  }
  const fields = await herald.services.store.fields.find({ account: account.account }).toArray();
  expect(fields.length).toBeGreaterThan(0);
  for (const field of fields) {
    expect(Object.keys(field).sort()).toEqual(FIELD_FIELDS);
    expect(['TEXT', 'INT', 'DATE']).toContain(field.format);
  }
  const exports = await herald.services.store.tasks.find({ account: account.account, type: 'CONTACT_EXPORT_TASK' }).toArray();
  expect(exports.length).toBeGreaterThan(0);
  for (const task of exports) {
    expect(Object.keys(task.parameters).sort()).toEqual(EXPORT_PARAMETERS);
    expect(task.parameters.listId === null || Number.isInteger(task.parameters.listId)).toBe(true);
  }
  const optins = await herald.services.store.optinConfirmations.find({ account: account.account }).toArray();
  expect(optins.length).toBeGreaterThan(0);
  for (const optin of optins) {
    expect(Object.keys(optin).every((k) => OPTIN_FIELDS.has(k))).toBe(true);
    expect(optin.email).toBe(optin.email.trim().toLowerCase());
    expect(optin.redirect === undefined || /^https?:\/\//.test(optin.redirect)).toBe(true);
    expect(optin.interests.every((id) => Number.isInteger(id))).toBe(true);
  }
});
