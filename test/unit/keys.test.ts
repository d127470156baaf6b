import { formatKey, hashKey, randomToken } from '../../core/accounts/keys';
import { keyFromHeader } from '../../api/credential-header';
import { derivedId, newId } from '../../core/shared/ids';

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
