// The envelope as nodemailer's Mailer handed it to the SMTP connection: each address parsed and
// normalised (domains lowercased and made punycode, odd local parts quoted), repeated recipients
// dropped (MimeNode.setEnvelope). That takes ~15 µs a message; an envelope of plain addresses
// (Herald's return path, ordinary recipients) comes out of it as it went in, so it skips it.
import MimeNode from 'nodemailer/lib/mime-node';

export interface Envelope { from: string; to: string[] }

/**
 * An ASCII dot-atom local part at a lowercase host name whose last label starts with a letter
 * (not an IPv4 address, which the URL parser would rewrite): nodemailer leaves it as it is
 * (test/unit/relay-envelope.test.ts checks it against nodemailer).
 */
const PLAIN = /^[A-Za-z0-9_+-]+(?:\.[A-Za-z0-9_+-]+)*@(?:[a-z0-9-]+\.)*[a-z][a-z0-9-]*$/;

export function relayEnvelope(envelope: Envelope): Envelope {
  const { from, to } = envelope;
  const plain = (from === '' || PLAIN.test(from)) && to.every((address) => PLAIN.test(address)) && (to.length < 2 || new Set(to).size === to.length);
  if (plain) return envelope;
  const normalised = new MimeNode().setEnvelope({ from, to }).getEnvelope();
  return { from: normalised.from || '', to: normalised.to };
}
