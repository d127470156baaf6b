// Attachments of a transactional send: the spec's formats only, checked by what the bytes are,
// not by what the client calls them. A name and a type are only claims; the content decides,
// and name, declared type and content must all name the same format. The checks are pure (no
// I/O): the API runs them while validating, so every problem comes back at once.
import { fromBuffer } from 'file-type';

/** One attachment as the client sends it: `data` is base64 of the file. */
export interface Attachment { file_name: string; mime_type: string; data: string }

export const MAX_ATTACHMENTS = 10;
export const MAX_FILE_NAME_LENGTH = 255;
export const MAX_MIME_TYPE_LENGTH = 255;

/**
 * No path separators (a name is a name, never a place) and no control characters (the name is
 * written into the message's MIME headers: CR or LF would start a new header).
 */
export const FILE_NAME_PATTERN = '^[^/\\\\\\u0000-\\u001f\\u007f]+$';
const FILE_NAME = new RegExp(FILE_NAME_PATTERN, 'u');
/** A MIME type as declared (parameters such as `; charset=utf-8` allowed, control characters not). */
export const MIME_TYPE_PATTERN = '^[^\\u0000-\\u001f\\u007f]+$';

interface Format {
  /** Extensions (lowercase, without the dot) that name this format. */
  extensions: string[];
  /** Declared types accepted for it: the standard one and the aliases common clients send. */
  mimeTypes: string[];
  /** The Content-Type the attachment is sent with (Herald's, never the client's string). */
  contentType: string;
  /** What the content must be, for the error message. */
  description: string;
  isContent(bytes: Buffer): Promise<boolean>;
}

/** What file-type detects the bytes as (its extension), undefined when nothing it knows. */
async function detected(bytes: Buffer): Promise<string | undefined> {
  return (await fromBuffer(bytes))?.ext;
}

const detectedAs = (...types: string[]) => async (bytes: Buffer) => types.includes((await detected(bytes)) ?? '');

/**
 * xls and doc are OLE compound files (file-type says `cfb`); which one is told by the streams
 * its directory names, in UTF-16LE: Word's `WordDocument`, Excel's `Workbook` (`Book` before
 * Excel 97). Looking for the name rather than parsing the directory is enough to tell a
 * spreadsheet from a document; the magic number has already told it is a compound file.
 */
const compoundFileWith = (...streams: string[]) => async (bytes: Buffer) =>
  (await detected(bytes)) === 'cfb' && streams.some((name) => bytes.includes(Buffer.from(name, 'utf16le')));

const utf8 = new TextDecoder('utf-8', { fatal: true });
/** Text: valid UTF-8 (a BOM is fine), no NUL byte (binary content tends to have some; text never needs one). */
async function isText(bytes: Buffer): Promise<boolean> {
  if (bytes.includes(0)) return false;
  try {
    utf8.decode(bytes);
    return true;
  } catch {
    return false;
  }
}

const FORMATS: Format[] = [
  { extensions: ['pdf'], mimeTypes: ['application/pdf', 'application/x-pdf'], contentType: 'application/pdf', description: 'a PDF file',
    isContent: detectedAs('pdf', 'ai') }, // an Illustrator file is a PDF with extra data
  { extensions: ['png'], mimeTypes: ['image/png'], contentType: 'image/png', description: 'a PNG image', isContent: detectedAs('png', 'apng') },
  { extensions: ['jpg', 'jpeg'], mimeTypes: ['image/jpeg', 'image/jpg', 'image/pjpeg'], contentType: 'image/jpeg', description: 'a JPEG image',
    isContent: detectedAs('jpg') },
  { extensions: ['gif'], mimeTypes: ['image/gif'], contentType: 'image/gif', description: 'a GIF image', isContent: detectedAs('gif') },
  { extensions: ['txt'], mimeTypes: ['text/plain'], contentType: 'text/plain; charset=utf-8', description: 'UTF-8 text without NUL bytes',
    isContent: isText },
  // Windows reports .csv files as application/vnd.ms-excel, so browsers and SDKs often send that.
  { extensions: ['csv'], mimeTypes: ['text/csv', 'text/comma-separated-values', 'application/csv', 'text/plain', 'application/vnd.ms-excel'],
    contentType: 'text/csv; charset=utf-8', description: 'UTF-8 text without NUL bytes', isContent: isText },
  { extensions: ['xls'], mimeTypes: ['application/vnd.ms-excel', 'application/msexcel', 'application/x-msexcel'], contentType: 'application/vnd.ms-excel',
    description: 'an Excel 97-2003 workbook (an OLE compound file with a Workbook stream)', isContent: compoundFileWith('Workbook', 'Book') },
  { extensions: ['xlsx'], mimeTypes: ['application/vnd.openxmlformats-officedocument.spreadsheetml.sheet'],
    contentType: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet', description: 'an Excel workbook (Office Open XML)',
    isContent: detectedAs('xlsx') },
  { extensions: ['doc'], mimeTypes: ['application/msword'], contentType: 'application/msword',
    description: 'a Word 97-2003 document (an OLE compound file with a WordDocument stream)', isContent: compoundFileWith('WordDocument') },
  { extensions: ['docx'], mimeTypes: ['application/vnd.openxmlformats-officedocument.wordprocessingml.document'],
    contentType: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document', description: 'a Word document (Office Open XML)',
    isContent: detectedAs('docx') },
];

export const ATTACHMENT_EXTENSIONS = FORMATS.flatMap((f) => f.extensions);

/** The format a file name names by its extension (letter case aside), if it is one of the spec's. */
function formatOfName(fileName: string): Format | undefined {
  const dot = fileName.lastIndexOf('.');
  if (dot < 0) return undefined;
  const extension = fileName.slice(dot + 1).toLowerCase();
  return FORMATS.find((f) => f.extensions.includes(extension));
}

/** The Content-Type an attachment of this (checked) name is sent with. */
export function contentTypeOf(fileName: string): string {
  return formatOfName(fileName)?.contentType ?? 'application/octet-stream';
}

/** `text/CSV; charset=utf-8` → `text/csv`: the declared type without its parameters. */
function essenceOf(mimeType: string): string {
  return mimeType.split(';', 1)[0].trim().toLowerCase();
}

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/**
 * The bytes of standard base64 (RFC 4648 §4, padded, no whitespace or line breaks), or
 * undefined for anything else: Node's decoder skips characters it does not know, so garbage
 * would otherwise decode into some other file. Re-encoding must give the very same text, which
 * also refuses non-zero padding bits.
 */
export function decodeBase64Strict(data: string): Buffer | undefined {
  if (data.length % 4 !== 0 || !BASE64.test(data)) return undefined;
  const bytes = Buffer.from(data, 'base64');
  return bytes.toString('base64') === data ? bytes : undefined;
}

export type AttachmentField = 'file_name' | 'mime_type' | 'data';
export interface AttachmentProblem { index: number; field: AttachmentField; message: string }

/**
 * Every problem of the attachments, each on its field; none means they may be sent. Each one
 * must be named `<name>.<extension>` with one of the spec's formats' extensions, declare a type
 * of that format (aliases and parameters allowed), and hold, in strict base64, content of that
 * format. The content is only examined when the name says what it must be.
 */
export async function checkAttachments(attachments: readonly Attachment[]): Promise<AttachmentProblem[]> {
  const problems: AttachmentProblem[] = [];
  for (const [index, attachment] of attachments.entries()) {
    const add = (field: AttachmentField, message: string) => problems.push({ index, field, message });
    const { file_name: fileName, mime_type: mimeType, data } = attachment;
    const bytes = decodeBase64Strict(data);
    if (!bytes) add('data', 'Must be standard base64 (A-Z, a-z, 0-9, +, /, padded with =; no line breaks)');
    else if (bytes.length === 0) add('data', 'The file is empty');
    if (fileName.length > MAX_FILE_NAME_LENGTH || !FILE_NAME.test(fileName)) {
      add('file_name', `A file name of at most ${MAX_FILE_NAME_LENGTH} characters, without / \\ or control characters`);
      continue;
    }
    const format = formatOfName(fileName);
    if (!format) {
      add('file_name', `The file name must end in ${ATTACHMENT_EXTENSIONS.map((e) => `.${e}`).join(', ')}`);
      continue;
    }
    if (!format.mimeTypes.includes(essenceOf(mimeType))) {
      add('mime_type', `A .${format.extensions[0]} file is declared as ${format.mimeTypes.join(' or ')}`);
    }
    if (bytes && bytes.length > 0 && !(await format.isContent(bytes))) {
      add('data', `The content is not ${format.description}, as the name .${format.extensions[0]} says`);
    }
  }
  return problems;
}
