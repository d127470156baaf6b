// A message DKIM-signed as nodemailer's Mailer signed a raw message: its last line ended first
// (MimeNode's LastNewline), then nodemailer's DKIM signer, which puts the DKIM-Signature header
// in front. Same bytes, so the same signature.
import DKIM from 'nodemailer/lib/dkim';

const CRLF = Buffer.from('\r\n');
const LF = Buffer.from('\n');

export async function dkimSigned(raw: Buffer, options: DKIM.SingleKeyOptions): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of new DKIM(options).sign(withLastLineEnded(raw))) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

function withLastLineEnded(raw: Buffer): Buffer {
  const last = raw.length > 0 ? raw[raw.length - 1] : undefined;
  if (last === 0x0a) return raw;
  return Buffer.concat([raw, last === 0x0d ? LF : CRLF]);
}
