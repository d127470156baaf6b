// Stored events straight from BSON to the JSON of a webhook body. Decoding each event into an
// object (the driver's default) and stringifying it again cost about 30 µs per ~1 KB event, most
// of a delivery's CPU; walking the raw bytes and writing JSON costs a fraction, and reads the
// two fields delivery needs (the _id cursor, the track_id for the deliveries log) on the way.
// The JSON is what JSON.stringify makes of the decoded event without its _id (keys in stored
// order). A type this walker does not know (none that events use) falls back to the decoder.
import { BSON, ObjectId } from 'mongodb';
import type { EventDoc } from '../../adapters/store/store';

export interface EventJson { id: ObjectId; trackId: string; json: string }

class Unsupported extends Error {}

/** Quoted JSON of each key name seen (events share a few dozen). */
const quotedKeys = new Map<string, string>();
function quotedKey(name: string): string {
  let quoted = quotedKeys.get(name);
  if (quoted === undefined) {
    quoted = JSON.stringify(name);
    if (quotedKeys.size < 10_000) quotedKeys.set(name, quoted);
  }
  return quoted;
}

function cstringEnd(buffer: Buffer, at: number): number {
  let end = at;
  while (buffer[end] !== 0) end += 1;
  return end;
}

/** JSON of the document (or array) starting at `at`; when `top`, fields whose names start with `_` (its _id, a ledger row's `_ledger`) are left out and _id/track_id are reported. */
function documentJson(buffer: Buffer, view: DataView, at: number, isArray: boolean, top?: { id?: ObjectId; trackId?: string }): string {
  const size = view.getInt32(at, true);
  const end = at + size - 1;
  let pos = at + 4;
  let out = '';
  while (pos < end) {
    const type = buffer[pos];
    const nameEnd = cstringEnd(buffer, pos + 1);
    const name = buffer.toString('utf8', pos + 1, nameEnd);
    pos = nameEnd + 1;
    let value: string;
    switch (type) {
      case 0x01: { // double
        const n = view.getFloat64(pos, true);
        value = Number.isFinite(n) ? String(n) : 'null';
        pos += 8;
        break;
      }
      case 0x02: { // string
        const length = view.getInt32(pos, true);
        const text = buffer.toString('utf8', pos + 4, pos + 4 + length - 1);
        if (top && name === 'track_id') top.trackId = text;
        value = JSON.stringify(text);
        pos += 4 + length;
        break;
      }
      case 0x03: // document
      case 0x04: { // array
        if (top && name.startsWith('_')) { // Herald's bookkeeping (a ledger row's `_ledger`): skipped unread
          pos += view.getInt32(pos, true);
          continue;
        }
        value = documentJson(buffer, view, pos, type === 0x04);
        pos += view.getInt32(pos, true);
        break;
      }
      case 0x07: { // ObjectId
        if (top && name === '_id') {
          top.id = new ObjectId(buffer.subarray(pos, pos + 12));
          pos += 12;
          continue;
        }
        value = `"${buffer.toString('hex', pos, pos + 12)}"`;
        pos += 12;
        break;
      }
      case 0x08: value = buffer[pos] ? 'true' : 'false'; pos += 1; break;
      case 0x09: value = JSON.stringify(new Date(Number(view.getBigInt64(pos, true))).toISOString()); pos += 8; break;
      case 0x0a: value = 'null'; break;
      case 0x10: value = String(view.getInt32(pos, true)); pos += 4; break;
      case 0x12: value = String(Number(view.getBigInt64(pos, true))); pos += 8; break;
      default: throw new Unsupported();
    }
    if (top && name.startsWith('_')) continue; // Herald's bookkeeping, never served
    if (out !== '') out += ',';
    out += isArray ? value : `${quotedKey(name)}:${value}`;
  }
  return isArray ? `[${out}]` : `{${out}}`;
}

/** The event's webhook JSON (without _id and bookkeeping such as `_ledger`), its _id and track_id, from its raw BSON. */
export function eventJsonFromBson(raw: Uint8Array): EventJson {
  const buffer = Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength);
  const view = new DataView(raw.buffer, raw.byteOffset, raw.byteLength);
  const top: { id?: ObjectId; trackId?: string } = {};
  try {
    const json = documentJson(buffer, view, 0, false, top);
    if (top.id && top.trackId !== undefined) return { id: top.id, trackId: top.trackId, json };
  } catch (error) {
    if (!(error instanceof Unsupported)) throw error;
  }
  const { _id, ...event } = BSON.deserialize(raw) as EventDoc;
  return { id: _id, trackId: event.track_id, json: JSON.stringify(event, (key, value) => (key.startsWith('_') ? undefined : value)) };
}
