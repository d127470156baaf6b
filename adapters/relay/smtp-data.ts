// A message's bytes as they go to the relay after DATA: every bare CR and bare LF made CRLF, a dot
// that starts a line doubled (a dot after a bare CR too: a relay that takes a lone CR for a line
// end must not read "\r.\r" as the end of the data), and the terminating "\r\n.\r\n". Byte for byte
// what nodemailer's DataStream (smtp-connection/data-stream.js) sends for the same input, found
// with native scans (Buffer.indexOf) instead of its byte-by-byte JavaScript loop, the relay
// thread's largest cost. A message with CRLF line ends only and no line starting with a dot goes
// out as it is.
const CR = 0x0d;
const LF = 0x0a;
const DOT = 0x2e;
const INSERT_CR = Buffer.from('\r');
const INSERT_LF = Buffer.from('\n');
const INSERT_DOT = Buffer.from('.');
/** After a message that ends with a line end; the dot on a line of its own. */
const END_OF_LINES = Buffer.from('.\r\n');
/** After any other message (or none): its last line ended first. */
const END = Buffer.from('\r\n.\r\n');

export function smtpData(raw: Buffer): Buffer {
  return isClean(raw) ? Buffer.concat([raw, endOf(raw)]) : normalised(raw);
}

/** The last byte a line end (a bare CR becomes CRLF too): the dot line follows; else CRLF first. */
const endOf = (raw: Buffer) => (raw.length > 0 && (raw[raw.length - 1] === LF || raw[raw.length - 1] === CR) ? END_OF_LINES : END);

/** True: every CR is followed by LF, every LF follows a CR, and no line starts with a dot. One indexOf per CR and LF. */
function isClean(raw: Buffer): boolean {
  if (raw[0] === DOT) return false;
  let cr = raw.indexOf(CR);
  for (let lf = raw.indexOf(LF); lf !== -1; lf = raw.indexOf(LF, lf + 1)) {
    // A bare CR before this LF, a bare LF (no CR at all: cr is -1, as is lf - 1 for an LF first), or a dot starting the next line.
    if (cr !== lf - 1 || cr === -1 || raw[lf + 1] === DOT) return false;
    cr = raw.indexOf(CR, lf + 1);
  }
  return cr === -1; // a CR after the last LF is bare
}

/** The message with its insertions: CR before a bare LF, LF after a bare CR, a dot before a dot that starts a line. */
function normalised(raw: Buffer): Buffer {
  const parts: Buffer[] = [];
  let copied = 0;
  const insert = (at: number, bytes: Buffer) => {
    parts.push(raw.subarray(copied, at), bytes);
    copied = at;
  };
  if (raw[0] === DOT) insert(0, INSERT_DOT);
  let cr = raw.indexOf(CR);
  let lf = raw.indexOf(LF);
  while (cr !== -1 || lf !== -1) {
    let lineStart: number;
    if (cr !== -1 && (lf === -1 || cr < lf)) {
      if (lf === cr + 1) {
        lineStart = cr + 2; // CRLF as it should be
        lf = raw.indexOf(LF, lineStart);
      } else {
        lineStart = cr + 1; // a bare CR
        insert(lineStart, INSERT_LF);
      }
      cr = raw.indexOf(CR, lineStart);
    } else {
      insert(lf, INSERT_CR); // a bare LF
      lineStart = lf + 1;
      lf = raw.indexOf(LF, lineStart);
    }
    if (raw[lineStart] === DOT) insert(lineStart, INSERT_DOT);
  }
  parts.push(raw.subarray(copied), endOf(raw));
  return Buffer.concat(parts);
}
