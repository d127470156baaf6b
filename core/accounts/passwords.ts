import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';

// Passwords are stored with scrypt (a slow, memory-hard KDF built into Node), as
// `scrypt$<N>$<r>$<p>$<salt b64>$<hash b64>` so the cost can be raised later.
const COST: ScryptOptions = { N: 16384, r: 8, p: 1, maxmem: 64 * 1024 * 1024 };
const KEY_LENGTH = 32;

export const MIN_PASSWORD_LENGTH = 8;

function derive(password: string, salt: Buffer, options: ScryptOptions): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    scrypt(password.normalize('NFC'), salt, KEY_LENGTH, options, (error, key) => (error ? reject(error) : resolve(key)));
  });
}

export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const hash = await derive(password, salt, COST);
  return ['scrypt', COST.N, COST.r, COST.p, salt.toString('base64'), hash.toString('base64')].join('$');
}

/** Hashed for a login of an unknown user, so that answer takes as long as a wrong password. */
let dummyHash: Promise<string> | undefined;

/** True when the password matches; with no stored hash it spends the same time and says false. */
export async function verifyPassword(password: string, stored: string | undefined): Promise<boolean> {
  const encoded = stored ?? await (dummyHash ??= hashPassword(randomBytes(16).toString('hex')));
  const [scheme, n, r, p, salt, hash] = encoded.split('$');
  if (scheme !== 'scrypt') return false;
  const expected = Buffer.from(hash, 'base64');
  const actual = await derive(password, Buffer.from(salt, 'base64'), { N: Number(n), r: Number(r), p: Number(p), maxmem: COST.maxmem });
  return stored !== undefined && actual.length === expected.length && timingSafeEqual(actual, expected);
}
