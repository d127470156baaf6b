// Pure parts of webhook delivery: BSON straight to JSON (the same JSON as decoding and
// stringifying), request splitting, the signature a receiver verifies, and which addresses the
// URL policy calls non-public.
import { BSON, ObjectId } from 'mongodb';
import fc from 'fast-check';
import { eventJsonFromBson } from '../../core/webhooks/bson-json';
import { splitIntoRequests } from '../../core/webhooks/payload';
import { signatureHeader, verifySignature } from '../../core/webhooks/signature';
import { isPrivateAddress } from '../../core/webhooks/url-policy';

describe('eventJsonFromBson', () => {
  const value: fc.Arbitrary<unknown> = fc.letrec((tie) => ({
    leaf: fc.oneof(fc.string({ unit: 'grapheme' }), fc.string(), fc.integer(), fc.double(), fc.boolean(), fc.constant(null), fc.date({ noInvalidDate: true })),
    node: fc.oneof({ depthSize: 'small' }, tie('leaf'), fc.array(tie('node'), { maxLength: 4 }), fc.dictionary(fc.string({ minLength: 1 }).filter((k) => !k.includes('\0') && !k.startsWith('$')), tie('node'), { maxKeys: 4 })),
  })).node;

  it('gives the JSON of the decoded document without _id and other `_` fields (a ledger row\'s _ledger), its _id and track_id', () => {
    fc.assert(fc.property(fc.dictionary(fc.string({ minLength: 1 }).filter((k) => !k.includes('\0') && !k.startsWith('$') && k !== '_id' && k !== 'track_id'), value, { maxKeys: 8 }), (fields) => {
      const doc = { _id: new ObjectId(), track_id: 'event_1', ...fields, _outcome_of: 'mail_1', _ledger: { status: 'sent', sentAt: new Date() } };
      const raw = BSON.serialize(doc);
      const { id, trackId, json } = eventJsonFromBson(raw);
      const decoded = Object.fromEntries(Object.entries(BSON.deserialize(raw)).filter(([key]) => !key.startsWith('_')));
      expect(id.equals(doc._id)).toBe(true);
      expect(trackId).toBe('event_1');
      expect(JSON.parse(json)).toEqual(JSON.parse(JSON.stringify(decoded)));
    }), { numRuns: 300 });
  });

  it('falls back to the decoder for a type events never use', () => {
    const raw = BSON.serialize({ _id: new ObjectId(), track_id: 't', amount: BSON.Decimal128.fromString('1.50') });
    expect(JSON.parse(eventJsonFromBson(raw).json)).toEqual({ track_id: 't', amount: { $numberDecimal: '1.50' } });
    const ledgerRow = BSON.serialize({ _id: new ObjectId(), track_id: 't', amount: BSON.Decimal128.fromString('1.50'), _ledger: { status: 'sent' } });
    expect(JSON.parse(eventJsonFromBson(ledgerRow).json)).toEqual({ track_id: 't', amount: { $numberDecimal: '1.50' } });
  });
});

describe('splitIntoRequests', () => {
  const events = Array.from({ length: 7 }, (_, i) => ({ id: new ObjectId(), trackId: `t${i}`, json: JSON.stringify({ track_id: `t${i}`, pad: 'x'.repeat(i === 3 ? 500 : 10) }) }));

  it('keeps order, at most maxEvents per request and about maxBytes, an oversized event alone', () => {
    const batches = splitIntoRequests(events, 3, 200);
    expect(batches.map((b) => b.trackIds)).toEqual([['t0', 't1', 't2'], ['t3'], ['t4', 't5', 't6']]);
    expect(batches.every((b) => b.last.equals(b.ids[b.ids.length - 1]))).toBe(true);
    expect(JSON.parse(batches[0].body).map((e: { track_id: string }) => e.track_id)).toEqual(['t0', 't1', 't2']);
  });
});

describe('Herald-Signature', () => {
  const secret = 'whsec_test';
  const body = '[{"track_id":"é"}]';

  it('is t=<seconds>,v1=<HMAC-SHA256 of "<t>.<body>"> and verifies within the tolerance only', () => {
    const now = 1_760_000_000_000;
    const header = signatureHeader(secret, body, now);
    expect(header).toMatch(/^t=1760000000,v1=[0-9a-f]{64}$/);
    expect(verifySignature(secret, body, header, 300, now + 299_000)).toBe(true);
    expect(verifySignature(secret, body, header, 300, now + 301_000)).toBe(false);
    expect(verifySignature('whsec_other', body, header, 300, now)).toBe(false);
    expect(verifySignature(secret, `${body} `, header, 300, now)).toBe(false);
    expect(verifySignature(secret, body, header.replace(/t=\d+/, 't=1760000001'), 300, now)).toBe(false);
    expect(verifySignature(secret, body, undefined, 300, now)).toBe(false);
  });
});

describe('isPrivateAddress', () => {
  it.each([
    '127.0.0.1', '10.0.0.1', '172.16.5.4', '172.31.255.255', '192.168.0.1', '169.254.169.254', '100.64.0.1', '100.127.255.255',
    '0.0.0.0', '224.0.0.1', '255.255.255.255', '::', '::1', 'fe80::1', 'fc00::1', 'fd12:3456::1', '::ffff:127.0.0.1', '::ffff:10.0.0.1',
  ])('%s is not public', (address) => expect(isPrivateAddress(address)).toBe(true));

  it.each(['8.8.8.8', '93.184.215.14', '172.32.0.1', '100.128.0.1', '2606:4700:4700::1111', '::ffff:8.8.8.8'])('%s is public', (address) => {
    expect(isPrivateAddress(address)).toBe(false);
  });
});
