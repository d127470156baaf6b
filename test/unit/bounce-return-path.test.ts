import { randomBytes } from 'node:crypto';
import { isEmailAddress } from '../../core/shared/email-address';
import { derivedId } from '../../core/shared/ids';
import { defaultBounceDomain, mailIdOfMessageId, readBounceAddress, returnPathOf } from '../../core/bounces/return-path';

const secret = randomBytes(32);
const domain = 'bounces.example.com';

describe('return paths (VERP)', () => {
  it('names the message, fits a local part (at most 64 characters of letters, digits and a dash) and reads back', () => {
    for (let i = 0; i < 200; i++) {
      const mailId = derivedId('mail', `request${i}`, String(i));
      const address = returnPathOf(mailId, secret, domain);
      const local = address.slice(0, address.lastIndexOf('@'));
      expect(local.length).toBeLessThanOrEqual(64);
      expect(local).toMatch(/^[a-z0-9]+-[a-z0-9]+$/);
      expect(address.endsWith(`@${domain}`)).toBe(true);
      expect(isEmailAddress(address)).toBe(true);
      expect(readBounceAddress(address, secret, domain)).toEqual({ kind: 'message', mailId });
    }
  });

  it('reads an address whatever its case (some MTAs change it)', () => {
    const mailId = derivedId('mail', 'r', '0');
    expect(readBounceAddress(returnPathOf(mailId, secret, domain).toUpperCase(), secret, domain)).toEqual({ kind: 'message', mailId });
  });

  it('finds a forged address: another key, an altered mail id or signature, a made-up local part', () => {
    const mailId = derivedId('mail', 'r', '0');
    const address = returnPathOf(mailId, secret, domain);
    const [core, signature] = address.slice(0, address.indexOf('@')).split('-');
    const other = derivedId('mail', 'r', '1').slice('mail_'.length);
    const flipped = `${signature.slice(0, -1)}${signature.endsWith('0') ? '1' : '0'}`;
    for (const forged of [
      returnPathOf(mailId, randomBytes(32), domain),
      `${other}-${signature}@${domain}`,
      `${core}-${flipped}@${domain}`,
      `${core}@${domain}`,
      `someone@${domain}`,
    ]) expect(readBounceAddress(forged, secret, domain)).toEqual({ kind: 'forged' });
  });

  it('takes the fixed report mailboxes without a signature, and nothing outside the bounce domain', () => {
    expect(readBounceAddress(`FBL@${domain}`, secret, domain)).toEqual({ kind: 'mailbox', name: 'fbl' });
    expect(readBounceAddress(`abuse@${domain}`, secret, domain)).toEqual({ kind: 'mailbox', name: 'abuse' });
    expect(readBounceAddress(`postmaster@${domain}`, secret, domain)).toEqual({ kind: 'mailbox', name: 'postmaster' });
    expect(readBounceAddress('fbl@example.com', secret, domain)).toBeUndefined();
    expect(readBounceAddress(returnPathOf(derivedId('mail', 'r', '0'), secret, domain).replace(domain, 'elsewhere.example'), secret, domain)).toBeUndefined();
  });

  it('refuses to make a return path of something that is not a mail id', () => {
    expect(() => returnPathOf('event_abc', secret, domain)).toThrow(/not a mail id/);
  });

  it('reads the mail id of a Herald Message-ID, and nothing of another', () => {
    expect(mailIdOfMessageId('<mail_1a2b3c@herald.example>')).toBe('mail_1a2b3c');
    expect(mailIdOfMessageId('mail_1a2b3c@herald.example')).toBe('mail_1a2b3c');
    expect(mailIdOfMessageId('<20260302091503.4ZQ1x52mTkz9sWR@mail.example.net>')).toBeUndefined();
    expect(mailIdOfMessageId(undefined)).toBeUndefined();
  });

  it('defaults the bounce domain like the configuration does', () => {
    expect(defaultBounceDomain('mail.Example.com')).toBe('bounces.mail.example.com');
    expect(defaultBounceDomain('localhost')).toBe('bounces.localhost.localdomain');
  });
});
