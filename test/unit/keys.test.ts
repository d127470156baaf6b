import { formatKey, hashKey, randomToken } from '../../core/accounts/keys';
import { keyFromHeader } from '../../api/credential-header';
import { derivedId, newId } from '../../core/shared/ids';
import { campaignMailId, campaignRequestId } from '../../core/campaigns/model';
import { mailIdOf } from '../../core/sending/plan';
import { messageMailId } from '../../core/tracking/verified-tokens';

describe('keys', () => {
  it('have the original shapes: <account>-<32> and <account>-tr-<32>', () => {
    expect(formatKey('acme', 'api')).toMatch(/^acme-[A-Za-z0-9]{32}$/);
    expect(formatKey('acme', 'transactional')).toMatch(/^acme-tr-[A-Za-z0-9]{32}$/);
  });

  it('are random and hashed deterministically', () => {
    const tokens = new Set(Array.from({ length: 1000 }, () => randomToken()));
    expect(tokens.size).toBe(1000);
    expect(hashKey('a-b')).toBe(hashKey('a-b'));
    expect(hashKey('a-b')).not.toBe(hashKey('a-c'));
    expect(hashKey('a-b')).toMatch(/^[0-9a-f]{64}$/);
  });

  it('are read from Bearer, bearer and bare Authorization headers', () => {
    expect(keyFromHeader('Bearer acme-tr-x')).toBe('acme-tr-x');
    expect(keyFromHeader('bearer acme-tr-x')).toBe('acme-tr-x');
    expect(keyFromHeader('acme-tr-x')).toBe('acme-tr-x');
    expect(keyFromHeader('')).toBeUndefined();
    expect(keyFromHeader('Bearer ')).toBeUndefined();
  });
});

describe('ids', () => {
  it('newId is unique and safe in workflow ids', () => {
    const ids = new Set(Array.from({ length: 1000 }, () => newId()));
    expect(ids.size).toBe(1000);
    for (const id of ids) expect(id).toMatch(/^[0-9a-z]{24}$/);
  });

  it('derivedId is stable for the same parts and differs otherwise', () => {
    expect(derivedId('mail', 'r1', '0')).toBe(derivedId('mail', 'r1', '0'));
    expect(derivedId('mail', 'r1', '0')).not.toBe(derivedId('mail', 'r1', '1'));
    expect(derivedId('mail', 'r1', '0')).toMatch(/^mail_[0-9a-z]+$/);
  });
});

describe('the mail_id a tracking token names', () => {
  it('is a campaign round\'s prefix and seq when the token says so, and the earlier formula for a campaign message sent before', () => {
    const seq = campaignMailId('acme', 42, 7, 1);
    expect(seq).toMatch(/^mail_[0-9a-z]{27}$/);
    expect(messageMailId({ account: 'acme', requestId: campaignRequestId(42, 1), index: 7, seqMailId: true })).toBe(seq);
    expect(messageMailId({ account: 'acme', requestId: campaignRequestId(42, 1), index: 7 })).toBe(mailIdOf('acme', campaignRequestId(42, 1), 7));
    expect(messageMailId({ account: 'acme', requestId: 'f00d', index: 3 })).toBe(mailIdOf('acme', 'f00d', 3));
    // A round's mail_ids sort in seq order and never meet a transactional one's length.
    const ids = [0, 1, 35, 36, 1295, 100_000].map((n) => campaignMailId('acme', 42, n));
    expect([...ids].sort()).toEqual(ids);
    expect(mailIdOf('acme', 'f00d', 3).length).toBeLessThan(seq.length);
  });
});
