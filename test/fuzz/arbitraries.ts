// Bodies for fuzzing: valid ones built from the send schema's shape, then mutated with the
// input that broke services before (wrong types, huge and odd strings, deep nesting, unknown
// keys, __proto__, MongoDB operators, refused headers), sometimes damaged as raw text.
import fc from 'fast-check';

type Json = unknown;

const email = fc.emailAddress({ size: 'small' });
const address = fc.record({ email, name: fc.string({ maxLength: 30 }) }, { requiredKeys: ['email'] });
const shortText = fc.string({ maxLength: 40 });

/** A body the send schema accepts (or nearly: limits are hit now and then). */
export const validSendBody = fc.record({
  from: address,
  reply_to: address,
  subject: fc.string({ minLength: 1, maxLength: 60 }),
  content: fc.record({ html: shortText.map((t) => `<p>${t}</p>`), text: shortText }),
  headers: fc.dictionary(fc.string({ minLength: 1, maxLength: 10 }).map((k) => `X-${k.replace(/[^A-Za-z0-9-]/g, 'a')}`), fc.string({ maxLength: 20 }), { maxKeys: 3 }),
  recipients: fc.array(fc.record({
    to: address,
    cc: fc.array(address, { maxLength: 2 }),
    substitutions: fc.dictionary(fc.string({ minLength: 1, maxLength: 8 }).filter((k) => !k.startsWith('$') && k !== '__proto__'), fc.jsonValue({ maxDepth: 3 }), { maxKeys: 3 }),
    custom_args: fc.dictionary(fc.string({ minLength: 1, maxLength: 8 }).filter((k) => !k.startsWith('$') && k !== '__proto__'), fc.string({ maxLength: 10 }), { maxKeys: 2 }),
    tags: fc.array(shortText, { maxLength: 3 }),
  }, { requiredKeys: ['to'] }), { minLength: 1, maxLength: 3 }),
  tags: fc.array(shortText, { maxLength: 3 }),
  batch_code: fc.string({ maxLength: 30 }),
}, { requiredKeys: ['from', 'subject', 'content', 'recipients'] });

/** Deep nesting as text: JSON.stringify itself overflows the stack on a few thousand levels. */
const nestedText = (levels: number, array: boolean) =>
  array ? `${'['.repeat(levels)}"bottom"${']'.repeat(levels)}` : `${'{"n":'.repeat(levels)}"bottom"${'}'.repeat(levels)}`;

const oddString = fc.oneof(
  fc.constantFrom('', ' ', '\r\n', 'a\r\nBcc: victim@example.org', '\ud800', 'x\udc00y', '\u0000', '${x}', '[#if x]', 'a@b', '<script>', '"\'\\'),
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.string({ unit: 'binary-ascii', maxLength: 40 }),
);

/** A value to put where the schema expects something else, as JSON text. */
export const hostileValue: fc.Arbitrary<string> = fc.oneof(
  fc.oneof(
    fc.constantFrom<Json>(null, true, false, 0, -1, 1.5, 1e308, [], {}),
    oddString,
    fc.integer({ min: 201, max: 400_000 }).map((n) => 'x'.repeat(n)),
    fc.jsonValue({ maxDepth: 3 }),
    fc.constantFrom<Json>({ $gt: '' }, { $where: 'sleep(100)' }, { $ne: null }, { 'a.b': 1 }, { '': 1 }),
    fc.integer({ min: 900, max: 12_000 }).map((n) => Array.from({ length: n }, () => ({ to: { email: 'many@example.net' } }))),
    fc.constant<Json>(Object.fromEntries(Array.from({ length: 1200 }, (_, i) => [`k${i}`, i]))),
  ).map((value) => JSON.stringify(value)),
  fc.tuple(fc.integer({ min: 20, max: 5000 }), fc.boolean()).map(([levels, array]) => nestedText(levels, array)),
);

/** A key to add where the schema expects none (or a header a client must not set). */
export const hostileKey = fc.oneof(
  fc.constantFrom('__proto__', 'constructor', 'prototype', '$where', '$set', 'a.b', '', 'Bcc', 'bcc', 'BCC', 'Content-Type', 'Sender', 'dkim-signature', 'X-Ok'),
  fc.string({ maxLength: 12 }),
  fc.integer({ min: 901, max: 2000 }).map((n) => 'k'.repeat(n)),
);

type Mutation =
  | { kind: 'replace'; at: number; value: string }
  | { kind: 'delete'; at: number }
  | { kind: 'add'; at: number; key: string; value: string };

const mutation: fc.Arbitrary<Mutation> = fc.oneof(
  fc.record({ kind: fc.constant('replace' as const), at: fc.nat(), value: hostileValue }),
  fc.record({ kind: fc.constant('delete' as const), at: fc.nat() }),
  fc.record({ kind: fc.constant('add' as const), at: fc.nat(), key: hostileKey, value: hostileValue }),
);

type RawDamage = { kind: 'none' } | { kind: 'truncate'; at: number } | { kind: 'insert'; at: number; text: string };
const rawDamage: fc.Arbitrary<RawDamage> = fc.oneof(
  { weight: 8, arbitrary: fc.constant({ kind: 'none' as const }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('truncate' as const), at: fc.nat() }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('insert' as const), at: fc.nat(), text: fc.constantFrom('{', ']', ',', '"', '\\', '\u0000', 'null', '"__proto__":{},') }) },
);

/** JSON text of 0 to 3 mutations of a valid body, sometimes damaged as text. */
export function mutatedJson<T>(valid: fc.Arbitrary<T>): fc.Arbitrary<string> {
  return fc.tuple(valid, fc.array(mutation, { maxLength: 3 }), rawDamage).map(([body, mutations, damage]) => {
    const value = structuredClone(body) as Json;
    // Mutated places get a marker; the hostile JSON text replaces it after serialising.
    mutations.forEach((m, i) => applyMutation(value, m, marker(i)));
    let text = JSON.stringify(value);
    mutations.forEach((m, i) => { if (m.kind !== 'delete') text = text.replace(JSON.stringify(marker(i)), m.value); });
    return damageText(text, damage);
  });
}

/**
 * A form body (PHP-style brackets, as the original's clients send) of a mutated valid body, or
 * raw hostile form text: deep brackets, operator keys, __proto__, many parameters.
 */
export function mutatedForm<T>(valid: fc.Arbitrary<T>): fc.Arbitrary<string> {
  const encoded = fc.tuple(valid, fc.array(fc.tuple(hostileKey, fc.string({ maxLength: 30 })), { maxLength: 3 }))
    .map(([body, extra]) => {
      const pairs = [...formPairs(body as Json, ''), ...extra.map(([k, v]) => [k, v] as [string, string])];
      return pairs.map(([k, v]) => `${encodeURIComponent(k).replace(/%5B/g, '[').replace(/%5D/g, ']')}=${encodeURIComponent(v)}`).join('&');
    });
  const raw = fc.oneof(
    fc.integer({ min: 20, max: 3000 }).map((n) => `a${'[b]'.repeat(n)}=1`),
    fc.constantFrom('user[$ne]=x&password[$gt]=', '__proto__[admin]=1&user=a', 'constructor[prototype][x]=1', 'permissions[][$where]=1', '%', '%zz=1', '&&&=&='),
    fc.integer({ min: 900, max: 3000 }).map((n) => Array.from({ length: n }, (_, i) => `p${i}=1`).join('&')),
    fc.string({ unit: 'binary-ascii', maxLength: 200 }),
  );
  return fc.oneof({ weight: 3, arbitrary: encoded }, { weight: 1, arbitrary: raw });
}

/** `a[b][0]=v` pairs of a value, as PHP's http_build_query writes them (iterative). */
function formPairs(root: Json, prefix: string): Array<[string, string]> {
  const pairs: Array<[string, string]> = [];
  const stack: Array<[Json, string]> = [[root, prefix]];
  while (stack.length > 0 && pairs.length < 2000) {
    const [value, name] = stack.pop()!;
    if (value !== null && typeof value === 'object') {
      for (const [k, v] of Object.entries(value)) stack.push([v, name ? `${name}[${k}]` : k]);
    } else if (name) {
      pairs.push([name, value === null ? '' : String(value)]);
    }
  }
  return pairs;
}

/** The text of a mutated send body. */
export const mutatedSendBody = mutatedJson(validSendBody);

/** What the fuzzer knows of its account, so that some generated requests are valid. */
export interface FuzzContext { account: string; apiKey: string; email: string; password: string }

/** A login as clients send it: email or user@account and password, maybe account and newPassword; or an apikey. */
export const validLogin = (known: FuzzContext) => fc.oneof(
  fc.record({ user: fc.constantFrom(known.email, known.email.toUpperCase()), password: fc.constant(known.password), account: fc.constant(known.account) }, { requiredKeys: ['user', 'password'] }),
  fc.record({ user: email, password: fc.string({ minLength: 1, maxLength: 20 }), account: fc.stringMatching(/^[a-z0-9]{1,12}$/) }, { requiredKeys: ['user', 'password'] }),
  fc.record({ apikey: fc.oneof(fc.constant(known.apiKey), fc.string({ minLength: 8, maxLength: 60 })) }),
);

const PERMISSIONS = ['contacts:list', 'contacts:create', 'lists:list', 'users:list', 'tasks:cancel', 'root:all'];
/** A new user of an account. */
export const validNewUser = fc.record({
  email, password: fc.string({ minLength: 8, maxLength: 30 }), permissions: fc.subarray(PERMISSIONS),
}, { requiredKeys: ['email', 'password'] });

/** A new list: a name (sometimes only spaces, or at the 100-character limit), maybe a description and tags. */
export const validNewList = fc.record({
  name: fc.oneof(fc.string({ minLength: 1, maxLength: 40 }), fc.constantFrom(' ', 'n'.repeat(100), 'Clientes VIP')),
  description: fc.string({ maxLength: 200 }),
  tags: fc.array(fc.string({ minLength: 1, maxLength: 20 }), { maxLength: 5 }),
}, { requiredKeys: ['name'] });

/** A new contact as the original's clients send it (lists 1–3 exist once the lists target ran). */
export const validNewContact = fc.record({
  email,
  firstName: fc.string({ maxLength: 30 }),
  lastName: fc.string({ maxLength: 30 }),
  gender: fc.constantFrom('', 'M', 'F', 'm'),
  language: fc.constantFrom('', 'es', 'en', 'pt'),
  lists: fc.array(fc.oneof(fc.integer({ min: 1, max: 3 }), fc.constantFrom('1', '2'), fc.record({ id: fc.integer({ min: 1, max: 3 }) })), { maxLength: 2 }),
  interests: fc.array(fc.integer({ min: 1, max: 3 }), { maxLength: 2 }),
  customFields: fc.array(fc.record({ id: fc.integer({ min: 1, max: 12 }), value: fc.string({ maxLength: 10 }) }), { maxLength: 2 }),
}, { requiredKeys: ['email'] });

/** Containers of a value and the path to each, found without recursion. */
function containers(root: Json): Array<Record<string, Json> | Json[]> {
  const found: Array<Record<string, Json> | Json[]> = [];
  const queue: Json[] = [root];
  while (queue.length > 0 && found.length < 200) {
    const node = queue.shift();
    if (typeof node !== 'object' || node === null) continue;
    found.push(node as Record<string, Json> | Json[]);
    queue.push(...Object.values(node as object).slice(0, 20));
  }
  return found;
}

const marker = (i: number) => `\u2603fuzz-${i}\u2603`;

function applyMutation(root: Json, m: Mutation, placeholder: string): void {
  const all = containers(root);
  const target = all[m.at % all.length];
  const keys = Object.keys(target);
  if (m.kind === 'add') {
    // Only objects take new keys (an array's would not be serialised, and `length` cannot be redefined).
    if (!Array.isArray(target)) Object.defineProperty(target, m.key, { value: placeholder, enumerable: true, writable: true, configurable: true });
    return;
  }
  if (keys.length === 0) return;
  const key = keys[m.at % keys.length];
  if (m.kind === 'delete') delete (target as Record<string, Json>)[key];
  else (target as Record<string, Json>)[key] = placeholder;
}

function damageText(text: string, damage: RawDamage): string {
  if (damage.kind === 'truncate') return text.slice(0, damage.at % (text.length + 1));
  if (damage.kind === 'insert') {
    const at = damage.at % (text.length + 1);
    return text.slice(0, at) + damage.text + text.slice(at);
  }
  return text;
}

/** A new interest: a name, maybe a description and an expiry in days. */
export const validNewInterest = fc.record({
  name: fc.oneof(fc.string({ minLength: 1, maxLength: 40 }), fc.constantFrom('Cats', 'i'.repeat(100))),
  description: fc.string({ maxLength: 100 }),
  expirationDays: fc.oneof(fc.integer({ min: 0, max: 3650 }), fc.constantFrom('30', -1)),
}, { requiredKeys: ['name'] });

/** A new custom field: a name, maybe a tag (upper case letters and digits) and a format. */
export const validNewField = fc.record({
  name: fc.string({ minLength: 1, maxLength: 40 }),
  tag: fc.oneof(fc.stringMatching(/^[A-Z][A-Z0-9]{0,19}$/), fc.constantFrom('lower', 'A B')),
  format: fc.constantFrom('TEXT', 'INT', 'DATE', 'text', 'EMAIL'),
}, { requiredKeys: ['name'] });

/** A partial contact update (any subset of a new contact's fields). */
export const validContactUpdate = fc.record({
  firstName: fc.string({ maxLength: 30 }),
  language: fc.constantFrom('', 'es', 'en', 'xx'),
  lists: fc.array(fc.integer({ min: 1, max: 3 }), { maxLength: 2 }),
  interests: fc.array(fc.oneof(fc.integer({ min: 1, max: 3 }), fc.record({ id: fc.integer({ min: 1, max: 3 }) })), { maxLength: 2 }),
  customFields: fc.array(fc.record({ id: fc.integer({ min: 10, max: 12 }), value: fc.oneof(fc.string({ maxLength: 10 }), fc.integer()) }), { maxLength: 2 }),
}, { requiredKeys: [] });

/** An export selection: every part optional. */
export const validExport = fc.record({
  listId: fc.oneof(fc.integer({ min: 1, max: 3 }), fc.constantFrom('1', null, 0)),
  interestId: fc.oneof(fc.integer({ min: 1, max: 3 }), fc.constant(null)),
  state: fc.constantFrom('active', 'UNSUBSCRIBED', 'bounced', null, 'gone'),
}, { requiredKeys: [] });

/** A hosted opt-in submit as the original's form script posts it: field ids 3 (email), 1 and 2 (names), interests, a redirect. */
export const validOptinSubmit = fc.record({
  fields: fc.record({ 3: email, 1: fc.string({ maxLength: 30 }), 2: fc.string({ maxLength: 30 }) }, { requiredKeys: ['3'] }),
  interests: fc.array(fc.integer({ min: 1, max: 3 }), { maxLength: 2 }),
  redirect: fc.constantFrom('https://example.com/thanks', 'javascript:alert(1)', ''),
}, { requiredKeys: ['fields'] });
