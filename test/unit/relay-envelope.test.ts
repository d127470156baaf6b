// The relay's envelope (adapters/relay/envelope.ts) is what nodemailer's Mailer sent for the same
// envelope, whether it takes the plain addresses' shortcut or nodemailer's normalisation.
import fc from 'fast-check';
import MimeNode from 'nodemailer/lib/mime-node';
import { relayEnvelope, type Envelope } from '../../adapters/relay/envelope';

const viaNodemailer = (envelope: Envelope) => {
  const { from, to } = new MimeNode().setEnvelope({ ...envelope }).getEnvelope();
  return { from: from || '', to };
};

it('passes an envelope of plain addresses through as it is', () => {
  const envelope = { from: 'm1a2b3c4d5-0f1e2d3c4b5a6978@bounces.herald.test', to: ['Ann.Lee+news@example.com', 'bob_b@mail.example.co.uk'] };
  expect(relayEnvelope(envelope)).toBe(envelope);
  expect(viaNodemailer(envelope)).toEqual(envelope);
});

it('normalises other addresses as nodemailer does', () => {
  const envelopes: Envelope[] = [
    { from: 'a@Example.COM', to: ['b@EXAMPLE.net'] },
    { from: 'a@jõgeva.ee', to: ['ü@jõgeva.ee'] },
    { from: '', to: ['x@example.com', 'x@example.com', 'y@example.com'] },
    { from: 'a@1.2.3', to: ['b@0x7f.1', 'c@[127.0.0.1]'] },
    { from: 'Ann <ann@example.com>', to: ['Bob <bob@example.com>, carl@example.com'] },
    { from: '"odd name"@example.com', to: ['a..b@example.com', '.a@example.com', 'a b@example.com'] },
  ];
  for (const envelope of envelopes) expect(relayEnvelope(envelope)).toEqual(viaNodemailer(envelope));
});

it('agrees with nodemailer on any address made of dot-atom and host name characters', () => {
  const part = (chars: string) => fc.array(fc.constantFrom(...chars.split('')), { minLength: 1, maxLength: 8 }).map((c) => c.join(''));
  const local = fc.array(part('aZ09_+-.'), { minLength: 1, maxLength: 3 }).map((p) => p.join('.'));
  const domain = fc.array(fc.oneof(part('axn09-'), part('aZ9'), fc.constant('xn--jgeva-dua'), fc.constant('0x7f'), fc.constant('12')), { minLength: 1, maxLength: 3 })
    .map((labels) => labels.join('.'));
  const address = fc.tuple(local, domain).map(([l, d]) => `${l}@${d}`);
  const envelope = fc.record({ from: fc.oneof(address, fc.constant('')), to: fc.array(address, { minLength: 1, maxLength: 3 }) });
  fc.assert(fc.property(envelope, (e) => {
    expect(relayEnvelope(e)).toEqual(viaNodemailer(e));
  }), { numRuns: 3000 });
});
