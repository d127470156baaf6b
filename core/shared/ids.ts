import { createHash, randomBytes } from 'node:crypto';

/** A new random id: 24 lowercase base-36 characters, safe in workflow ids, URLs and Message-IDs. */
export function newId(): string {
  return BigInt(`0x${randomBytes(16).toString('hex')}`).toString(36).padStart(25, '0').slice(-24);
}

/** A deterministic id derived from its parts, so a retried activity computes the same one. */
export function derivedId(prefix: string, ...parts: string[]): string {
  const digest = createHash('sha256').update(parts.join('\u0000')).digest('hex');
  return `${prefix}_${BigInt(`0x${digest.slice(0, 32)}`).toString(36)}`;
}

/**
 * A deterministic prefix of exactly `length` base-36 characters (up to 24) after `<prefix>_`,
 * derived from its parts: ids made of it and a counter sort together, in counter order.
 */
export function derivedPrefix(prefix: string, length: number, ...parts: string[]): string {
  const digest = createHash('sha256').update(parts.join('\u0000')).digest('hex');
  return `${prefix}_${BigInt(`0x${digest.slice(0, 32)}`).toString(36).padStart(25, '0').slice(-length)}`;
}
