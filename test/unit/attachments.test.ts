// Attachments are checked by content: tiny but real files of each format, built here byte by byte.
import { checkAttachments, contentTypeOf, decodeBase64Strict, type Attachment } from '../../core/transactional/attachments';

const PDF = Buffer.from('%PDF-1.4\n1 0 obj\n<< /Type /Catalog >>\nendobj\ntrailer\n<< /Root 1 0 R >>\n%%EOF\n');
// 1x1 PNG and GIF images.
const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==', 'base64');
const GIF = Buffer.from('R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7', 'base64');
// A JPEG's start (SOI, JFIF APP0) and end (EOI) markers.
const JPEG = Buffer.from('ffd8ffe000104a46494600010100000100010000ffd9', 'hex');
const TEXT = Buffer.from('\ufeffGrüße aus Köln – 東京\n');
const CSV = Buffer.from('email,name\nada@example.net,Ada Lovelace\n');

function crc32(bytes: Buffer): number {
  let crc = 0xffffffff;
  for (const byte of bytes) {
    crc ^= byte;
    for (let k = 0; k < 8; k += 1) crc = (crc >>> 1) ^ (0xedb88320 & -(crc & 1));
  }
  return (crc ^ 0xffffffff) >>> 0;
}

/** A zip archive of stored (uncompressed) entries, as Office Open XML files are zips of XML parts. */
function zip(entries: Record<string, string>): Buffer {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const [name, text] of Object.entries(entries)) {
    const data = Buffer.from(text);
    const fileName = Buffer.from(name);
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt32LE(crc32(data), 14);
    local.writeUInt32LE(data.length, 18);
    local.writeUInt32LE(data.length, 22);
    local.writeUInt16LE(fileName.length, 26);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(20, 4);
    central.writeUInt16LE(20, 6);
    central.writeUInt32LE(crc32(data), 16);
    central.writeUInt32LE(data.length, 20);
    central.writeUInt32LE(data.length, 24);
    central.writeUInt16LE(fileName.length, 28);
    central.writeUInt32LE(offset, 42);
    locals.push(local, fileName, data);
    centrals.push(central, fileName);
    offset += 30 + fileName.length + data.length;
  }
  const directory = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(centrals.length / 2, 8);
  end.writeUInt16LE(centrals.length / 2, 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, directory, end]);
}

const CONTENT_TYPES = '<?xml version="1.0"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"/>';
const DOCX = zip({ '[Content_Types].xml': CONTENT_TYPES, '_rels/.rels': '<Relationships/>', 'word/document.xml': '<w:document/>' });
const XLSX = zip({ '[Content_Types].xml': CONTENT_TYPES, '_rels/.rels': '<Relationships/>', 'xl/workbook.xml': '<workbook/>' });

/** An OLE compound file: the 512-byte header, then one directory sector naming its streams. */
function compoundFile(...streams: string[]): Buffer {
  const header = Buffer.alloc(512);
  Buffer.from('d0cf11e0a1b11ae1', 'hex').copy(header, 0);
  header.writeUInt16LE(0x3e, 24); // minor version
  header.writeUInt16LE(3, 26); // major version 3: 512-byte sectors
  header.writeUInt16LE(0xfffe, 28); // little-endian
  header.writeUInt16LE(9, 30); // sector shift
  header.writeUInt16LE(6, 32); // mini sector shift
  header.writeUInt32LE(0, 48); // first directory sector
  const directory = Buffer.alloc(512);
  ['Root Entry', ...streams].forEach((name, i) => {
    const entry = i * 128;
    Buffer.from(name, 'utf16le').copy(directory, entry);
    directory.writeUInt16LE((name.length + 1) * 2, entry + 64);
    directory.writeUInt8(i === 0 ? 5 : 2, entry + 66); // root storage, then streams
  });
  return Buffer.concat([header, directory]);
}
const DOC = compoundFile('WordDocument', '\u0001CompObj');
const XLS = compoundFile('Workbook', '\u0005SummaryInformation');

const attachment = (fileName: string, mimeType: string, bytes: Buffer): Attachment => ({ file_name: fileName, mime_type: mimeType, data: bytes.toString('base64') });

describe('checkAttachments', () => {
  it.each([
    ['invoice.pdf', 'application/pdf', PDF],
    ['pixel.png', 'image/png', PNG],
    ['photo.jpg', 'image/jpeg', JPEG],
    ['photo.JPEG', 'image/jpeg', JPEG],
    ['anim.gif', 'image/gif', GIF],
    ['notes.txt', 'text/plain', TEXT],
    ['contacts.csv', 'text/csv', CSV],
    ['report.xls', 'application/vnd.ms-excel', XLS],
    ['report.xlsx', 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet', XLSX],
    ['letter.doc', 'application/msword', DOC],
    ['letter.docx', 'application/vnd.openxmlformats-officedocument.wordprocessingml.document', DOCX],
  ])('accepts %s (%s) whose content is of that format', async (fileName, mimeType, bytes) => {
    expect(await checkAttachments([attachment(fileName, mimeType, bytes)])).toEqual([]);
  });

  it('accepts common aliases and parameters of the declared type, in any letter case', async () => {
    expect(await checkAttachments([
      attachment('a.csv', 'text/csv; charset=utf-8', CSV),
      attachment('b.csv', 'application/vnd.ms-excel', CSV), // what Windows reports for .csv
      attachment('c.PNG', 'IMAGE/PNG', PNG),
      attachment('d.jpg', 'image/jpg', JPEG),
    ])).toEqual([]);
  });

  it.each([
    ['PNG bytes named .pdf', attachment('invoice.pdf', 'application/pdf', PNG)],
    ['a PDF named .png', attachment('pixel.png', 'image/png', PDF)],
    ['a GIF named .jpg', attachment('photo.jpg', 'image/jpeg', GIF)],
    ['a Word document named .xls', attachment('report.xls', 'application/vnd.ms-excel', DOC)],
    ['a workbook named .doc', attachment('letter.doc', 'application/msword', XLS)],
    ['a compound file without a Word stream', attachment('letter.doc', 'application/msword', compoundFile('Contents'))],
    ['a .docx named .xlsx', attachment('report.xlsx', 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet', DOCX)],
    ['a plain zip named .docx', attachment('x.docx', 'application/vnd.openxmlformats-officedocument.wordprocessingml.document', zip({ 'a.bin': 'x' }))],
    ['text named .pdf', attachment('fake.pdf', 'application/pdf', Buffer.from('not a pdf at all'))],
    ['binary named .txt (invalid UTF-8)', attachment('a.txt', 'text/plain', Buffer.from([0x48, 0x69, 0xff, 0xfe]))],
    ['text with a NUL byte named .csv', attachment('a.csv', 'text/csv', Buffer.from('a,b\u0000\n'))],
    ['a PNG named .txt', attachment('a.txt', 'text/plain', PNG)],
  ])('refuses %s on its data', async (_label, file) => {
    const problems = await checkAttachments([file]);
    expect(problems).toEqual([{ index: 0, field: 'data', message: expect.stringContaining('The content is not') }]);
  });

  it.each(['program.exe', 'invoice.pdf.exe', 'README', 'archive.zip', 'trailingdot.'])('refuses the name %s (not one of the formats)', async (fileName) => {
    expect(await checkAttachments([attachment(fileName, 'application/pdf', PDF)]))
      .toEqual([{ index: 0, field: 'file_name', message: expect.stringContaining('.pdf, .png, .jpg, .jpeg, .gif, .txt, .csv, .xls, .xlsx, .doc, .docx') }]);
  });

  it.each(['a\r\nContent-Type: text/html.pdf', 'x\n.pdf', '../../etc/passwd.pdf', 'C:\\temp\\a.pdf', 'dir/a.pdf', `${'a'.repeat(252)}.pdf`])(
    'refuses the name %j (separators, control characters, length)', async (fileName) => {
      const problems = await checkAttachments([attachment(fileName, 'application/pdf', PDF)]);
      expect(problems).toEqual([{ index: 0, field: 'file_name', message: expect.stringContaining('without / \\ or control characters') }]);
    });

  it('refuses a declared type of another format, on mime_type only', async () => {
    expect(await checkAttachments([attachment('invoice.pdf', 'image/png', PDF), attachment('a.pdf', 'application/octet-stream', PDF)])).toEqual([
      { index: 0, field: 'mime_type', message: expect.stringContaining('application/pdf') },
      { index: 1, field: 'mime_type', message: expect.any(String) },
    ]);
  });

  it('reports every problem of every attachment, each with its index', async () => {
    const problems = await checkAttachments([
      attachment('ok.png', 'image/png', PNG),
      { file_name: 'bad.pdf', mime_type: 'text/plain', data: 'not base64!' },
      attachment('x.exe', 'application/pdf', PDF),
      attachment('fake.gif', 'image/gif', PNG),
    ]);
    expect(problems.map(({ index, field }) => `${index}.${field}`)).toEqual(['1.data', '1.mime_type', '2.file_name', '3.data']);
  });
});

describe('decodeBase64Strict', () => {
  it('decodes standard padded base64', () => {
    expect(decodeBase64Strict('aGVsbG8=')?.toString()).toBe('hello');
    expect(decodeBase64Strict('+/+/')).toEqual(Buffer.from([0xfb, 0xff, 0xbf]));
  });

  it.each([
    ['unpadded', 'aGVsbG8'],
    ['with a line break', 'aGVs\nbG8='],
    ['with spaces', 'aGVs bG8='],
    ['base64url', '-_-_'],
    ['padding inside', 'aG==bG8='],
    ['non-zero padding bits', 'aGVsbG9='],
    ['garbage', '%PDF-1.4!'],
    ['three padding characters', 'aGVsb==='],
  ])('refuses %s', (_label, text) => {
    expect(decodeBase64Strict(text)).toBeUndefined();
  });

  it('refuses empty content as an attachment', async () => {
    expect(await checkAttachments([{ file_name: 'a.txt', mime_type: 'text/plain', data: '' }]))
      .toEqual([{ index: 0, field: 'data', message: 'The file is empty' }]);
  });
});

describe('contentTypeOf', () => {
  it('sends the format\'s own type, whatever the client declared', () => {
    expect(contentTypeOf('A.JPEG')).toBe('image/jpeg');
    expect(contentTypeOf('notes.txt')).toBe('text/plain; charset=utf-8');
    expect(contentTypeOf('r.xlsx')).toBe('application/vnd.openxmlformats-officedocument.spreadsheetml.sheet');
  });
});
