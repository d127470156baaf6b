// Which URLs a webhook may POST to. Herald makes the requests from inside the operator's network,
// so a URL that leads to a private, loopback or link-local address would let an account reach
// services that are not meant to be public (SSRF). Such URLs are refused when an endpoint is
// created or changed (literal addresses, and host names that resolve to one), and every
// connection Herald opens checks the address it is about to use (guardedLookup), so a name that
// resolves elsewhere later (DNS rebinding) still cannot reach inside. HERALD_WEBHOOK_ALLOW_PRIVATE=1
// lifts the rule (tests, closed networks).
import dns from 'node:dns';
import net from 'node:net';

const blocked = new net.BlockList();
const RANGES: Array<[string, number, 'ipv4' | 'ipv6']> = [
  ['0.0.0.0', 8, 'ipv4'], // "this network", with the unspecified 0.0.0.0
  ['10.0.0.0', 8, 'ipv4'], // private
  ['100.64.0.0', 10, 'ipv4'], // carrier-grade NAT
  ['127.0.0.0', 8, 'ipv4'], // loopback
  ['169.254.0.0', 16, 'ipv4'], // link-local (cloud metadata services live here)
  ['172.16.0.0', 12, 'ipv4'], // private
  ['192.0.0.0', 24, 'ipv4'], // IETF protocol assignments
  ['192.168.0.0', 16, 'ipv4'], // private
  ['198.18.0.0', 15, 'ipv4'], // benchmarking
  ['224.0.0.0', 4, 'ipv4'], // multicast
  ['240.0.0.0', 4, 'ipv4'], // reserved, with the broadcast 255.255.255.255
  ['::', 128, 'ipv6'], // unspecified
  ['::1', 128, 'ipv6'], // loopback
  ['fe80::', 10, 'ipv6'], // link-local
  ['fec0::', 10, 'ipv6'], // site-local (deprecated, still routed inside some networks)
  ['fc00::', 7, 'ipv6'], // unique-local
  ['ff00::', 8, 'ipv6'], // multicast
  ['64:ff9b:1::', 48, 'ipv6'], // local-use NAT64
];
for (const [address, prefix, family] of RANGES) blocked.addSubnet(address, prefix, family);

/** True for an address webhooks may not reach (IPv4-mapped IPv6 addresses are judged as their IPv4 address). */
export function isPrivateAddress(address: string): boolean {
  const family = net.isIP(address);
  if (family === 0) return false;
  return blocked.check(address, family === 4 ? 'ipv4' : 'ipv6');
}

/** The host of a parsed URL as an address when it is one (brackets of IPv6 removed), else undefined. */
export function literalAddress(url: URL): string | undefined {
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  return net.isIP(host) ? host : undefined;
}

const RESOLVE_TIMEOUT_MS = 5000;
export const MAX_URL_LENGTH = 2000;

/**
 * Checks a webhook URL; returns it normalised (WHATWG form, no fragment), or the reason it is
 * refused, in words for the client.
 */
export async function checkWebhookUrl(raw: string, allowPrivate: boolean): Promise<{ url: string } | { problem: string }> {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return { problem: 'Must be an absolute URL, such as https://example.com/hooks' };
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return { problem: 'Only http and https URLs are allowed' };
  url.hash = '';
  if (url.href.length > MAX_URL_LENGTH) return { problem: `At most ${MAX_URL_LENGTH} characters` };
  if (allowPrivate) return { url: url.href };
  const literal = literalAddress(url);
  if (literal !== undefined) {
    return isPrivateAddress(literal) ? { problem: PRIVATE_PROBLEM } : { url: url.href };
  }
  let addresses: dns.LookupAddress[];
  try {
    addresses = await withTimeout(dns.promises.lookup(url.hostname, { all: true, verbatim: true }), RESOLVE_TIMEOUT_MS);
  } catch {
    return { problem: `The host name ${url.hostname} does not resolve` };
  }
  if (addresses.some((a) => isPrivateAddress(a.address))) return { problem: PRIVATE_PROBLEM };
  return { url: url.href };
}

const PRIVATE_PROBLEM = 'Private, loopback, link-local and other non-public addresses are not allowed';

/** A connection refused because its host resolved only to addresses webhooks may not reach. */
export class PrivateAddressError extends Error {
  readonly code = 'EPRIVATEADDRESS';
  constructor(host: string) {
    super(`${host} resolves to a non-public address: refused`);
  }
}

/**
 * The `lookup` of every webhook connection: resolves as usual, then keeps only public addresses
 * (unless allowed), so the address actually connected to is the one that was checked.
 */
export function guardedLookup(allowPrivate: boolean): net.LookupFunction {
  return (hostname, options, callback) => {
    dns.lookup(hostname, { ...options, all: true }, (error, addresses) => {
      if (error) return (callback as (e: Error) => void)(error);
      const usable = allowPrivate ? addresses : addresses.filter((a) => !isPrivateAddress(a.address));
      if (usable.length === 0) return (callback as (e: Error) => void)(new PrivateAddressError(hostname));
      if (options.all) return (callback as (e: null, a: dns.LookupAddress[]) => void)(null, usable);
      callback(null, usable[0].address, usable[0].family);
    });
  };
}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<never>((_, reject) => { timer = setTimeout(() => reject(new Error('timeout')), ms); });
  return Promise.race([promise, expired]).finally(() => clearTimeout(timer));
}
