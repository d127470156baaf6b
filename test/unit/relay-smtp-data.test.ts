// The relay's DATA bytes (adapters/relay/smtp-data.ts) are byte for byte what nodemailer's
// DataStream sends for the same message, however DataStream is handed it in chunks.
import fc from 'fast-check';
import DataStream from 'nodemailer/lib/smtp-connection/data-stream';
import { smtpData } from '../../adapters/relay/smtp-data';

/** What nodemailer's DataStream makes of `raw` written to it in pieces cut at `cuts`. */
function viaDataStream(raw: Buffer, cuts: number[] = []): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const stream = new DataStream();
    const out: Buffer[] = [];
    stream.on('data', (chunk: Buffer) => out.push(chunk));
    stream.on('end', () => resolve(Buffer.concat(out)));
    stream.on('error', reject);
    let from = 0;
    for (const at of [...cuts].sort((a, b) => a - b)) {
      stream.write(raw.subarray(from, at));
      from = at;
    }
    stream.end(raw.subarray(from));
  });
}

const TRICKY: Record<string, string> = {
  'empty': '',
  'a dot alone': '.',
  'CRLF only': 'Subject: x\r\n\r\nbody\r\n',
  'no final line end': 'Subject: x\r\n\r\nbody',
  'leading dots': '.first\r\n..second\r\n.\r\nlast.\r\n',
  'a bare LF first': '\nx\r\n',
  'bare LF': 'Subject: x\n\nline one\nline two\n',
  'bare LF then a dot': 'a\n.b\n..c\n.',
  'bare CR': 'a\rb\r\rc\r',
  'a dot after a bare CR': 'a\r.b\r..c\r.',
  'ends with a bare CR': 'line\r',
  'CR CR LF': 'a\r\r\nb',
  'LF CR': 'a\n\rb\n\r',
  'mixed': '.x\r\ny\nz\r.w\r\n\r\n.\n\r.',
  'dots mid-line': 'a.b\r\nc..d\r\n',
};

describe('smtpData', () => {
  for (const [name, text] of Object.entries(TRICKY)) {
    it(`matches DataStream: ${name}`, async () => {
      const raw = Buffer.from(text, 'latin1');
      expect(smtpData(raw).toString('latin1')).toBe((await viaDataStream(raw)).toString('latin1'));
    });
  }

  it('matches DataStream with a CR at the end of one chunk and its LF or dot at the start of the next', async () => {
    for (const text of ['a\r\nb', 'a\r.b', 'a\rb', 'a\n.b', 'a\r\n.b']) {
      const raw = Buffer.from(text, 'latin1');
      for (let cut = 0; cut <= raw.length; cut += 1) {
        expect(smtpData(raw).toString('latin1')).toBe((await viaDataStream(raw, [cut])).toString('latin1'));
      }
    }
  });

  it('matches DataStream on any mix of CR, LF, dots and text, in any chunks', async () => {
    const bytes = fc.array(fc.constantFrom('\r', '\n', '.', 'a', '\r\n', '\r\n.', ' '), { maxLength: 40 }).map((parts) => Buffer.from(parts.join(''), 'latin1'));
    const cases = fc.tuple(bytes, fc.array(fc.nat(), { maxLength: 4 })).map(([raw, cuts]) => ({ raw, cuts: cuts.map((c) => c % (raw.length + 1)) }));
    await fc.assert(fc.asyncProperty(cases, async ({ raw, cuts }) => {
      expect(smtpData(raw).equals(await viaDataStream(raw, cuts))).toBe(true);
    }), { numRuns: 2000 });
  });

  it('sends a message with CRLF line ends and no leading dot as it is, with the terminator', () => {
    const raw = Buffer.from('Subject: x\r\n\r\n<p>1.5</p>\r\n', 'latin1');
    expect(smtpData(raw)).toEqual(Buffer.concat([raw, Buffer.from('.\r\n')]));
  });
});
