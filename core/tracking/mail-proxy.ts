// Opens fetched by a mail provider's image proxy rather than by the reader's device: the proxy's
// User-Agent and address say nothing about the reader, so such opens carry no device or place
// (core/tracking/hit-fields.ts). Only signs that identify a proxy reliably are used:
//   gmail   Gmail's image proxy: "… (via ggpht.com GoogleImageProxy)" in the User-Agent.
//   yahoo   Yahoo Mail's (and AOL's) proxy: "YahooMailProxy" in the User-Agent.
//   apple   Apple Mail Privacy Protection: a bare "Mozilla/5.0" User-Agent (what its prefetch
//           sends, and no real browser or mail client does), or an address in Apple's 17.0.0.0/8.
import { isIPv4 } from 'node:net';

export type MailProxy = 'gmail' | 'yahoo' | 'apple';

/** The mail proxy a request came through, judged by its User-Agent and client address; undefined for a reader's own client. */
export function mailProxyOf(userAgent: string, ip: string): MailProxy | undefined {
  if (userAgent.includes('GoogleImageProxy')) return 'gmail';
  if (userAgent.includes('YahooMailProxy')) return 'yahoo';
  if (userAgent.trim() === 'Mozilla/5.0') return 'apple';
  // 17.0.0.0/8 is the first octet (a plain test: net.BlockList makes an object per check, on every open).
  const v4 = plainIpv4(ip);
  if (v4 && v4.startsWith('17.')) return 'apple';
  return undefined;
}

/** An IPv4 address, also when written IPv4-mapped (`::ffff:17.1.2.3`, how a dual-stack socket reports it). */
export function plainIpv4(ip: string): string | undefined {
  const bare = ip.startsWith('::ffff:') ? ip.slice(7) : ip;
  return isIPv4(bare) ? bare : undefined;
}
