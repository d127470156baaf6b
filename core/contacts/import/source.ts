// The bytes of an import, as text and as records: the beginning of a source (for inferring the
// options and for the preview), and the whole file streamed from the store through a real
// decoder (TextDecoder: UTF-8, ISO-8859-1 and every WHATWG encoding) and csv-parse.
import { Transform, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { parse, type CsvError, type Options } from 'csv-parse';
import { parse as parseSync } from 'csv-parse/sync';
import { openFile, type StoredFile } from '../../../adapters/store/files';
import type { Store } from '../../../adapters/store/store';

/** Bytes read for inference and previews (one GridFS chunk holds 255 KB). */
export const HEAD_BYTES = 256 * 1024;

/** The beginning of a source, decoded and cut after its last complete line (unless it is all of it). */
export interface SourceHead { text: string; encoding: string }

/** The encoding's name as the task shows it, or null when TextDecoder does not know it. */
export function encodingLabel(encoding: string): string | null {
  try {
    new TextDecoder(encoding);
    return encoding.toUpperCase();
  } catch {
    return null;
  }
}

/** Without a cut line at the end (when the text is not the whole source). */
function completeLines(text: string, whole: boolean): string {
  if (whole) return text;
  const end = text.lastIndexOf('\n');
  return end >= 0 ? text.slice(0, end + 1) : text;
}

export function rawHead(raw: string): SourceHead {
  const whole = raw.length <= HEAD_BYTES;
  return { text: completeLines(whole ? raw : raw.slice(0, HEAD_BYTES), whole), encoding: 'UTF-8' };
}

/**
 * The file's beginning. Without an encoding: UTF-8 when those bytes are valid UTF-8, otherwise
 * ISO-8859-1 (what spreadsheets on Windows write; decoded as its superset windows-1252).
 */
export async function fileHead(store: Store, file: StoredFile, encoding: string | undefined): Promise<SourceHead> {
  const bytes = await readStart(openFile(store, file), HEAD_BYTES);
  const whole = bytes.length >= file.length;
  const chosen = encoding ?? (isUtf8(bytes) ? 'UTF-8' : 'ISO-8859-1');
  return { text: completeLines(new TextDecoder(chosen).decode(bytes), whole), encoding: chosen.toUpperCase() };
}

function isUtf8(bytes: Buffer): boolean {
  try {
    new TextDecoder('utf-8', { fatal: true }).decode(bytes, { stream: true }); // stream: a character cut at the end is fine
    return true;
  } catch {
    return false;
  }
}

async function readStart(stream: Readable, limit: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let length = 0;
  try {
    for await (const chunk of stream) {
      chunks.push(chunk as Buffer);
      length += (chunk as Buffer).length;
      if (length >= limit) break;
    }
  } finally {
    stream.destroy();
  }
  return Buffer.concat(chunks).subarray(0, limit);
}

/** One record: its cells and the line it starts on (from 1). */
export interface SourceRecord { cells: string[]; line: number }

export interface ParseOptions { separator: string; quote: string; encoding: string }

/** What the import skipped as unreadable (an unclosed quote, …), with where. */
export interface SkippedRecord { line: number; message: string }

/**
 * Streams the file's records into `consume`, which reads them as they come (backpressure: the
 * file is read as fast as records are consumed). `bytesRead()` tells how far the file was read.
 * Empty lines and rows of empty cells are skipped; unreadable records go to `onSkip`.
 */
export async function streamRecords(
  store: Store, file: StoredFile, options: ParseOptions, onSkip: (skipped: SkippedRecord) => void,
  consume: (records: AsyncIterable<SourceRecord>, bytesRead: () => number) => Promise<void>,
): Promise<void> {
  let bytes = 0;
  const decoder = new TextDecoder(options.encoding);
  const decode = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      bytes += chunk.length;
      const text = decoder.decode(chunk, { stream: true });
      done(null, text === '' ? undefined : text);
    },
    flush(done) {
      const text = decoder.decode();
      done(null, text === '' ? undefined : text);
    },
  });
  const parser = parse({
    ...csvOptions(options.separator, options.quote),
    on_skip: (error: CsvError | undefined) => {
      onSkip({ line: (error as { lines?: number } | undefined)?.lines ?? 0, message: error?.message ?? 'Unreadable record' });
      return undefined;
    },
  });
  // Leaving the loop early destroys the parser, and pipeline then reports that (AbortError): the
  // consumer's own error is the one that says why.
  let stopped: { error: unknown } | undefined;
  await pipeline(openFile(store, file), decode, parser, async (records: AsyncIterable<SourceRecord>) => {
    try {
      await consume(records, () => bytes);
    } catch (error) {
      stopped = { error };
      throw error;
    }
  }).catch((error: unknown) => { throw stopped ? stopped.error : error; });
}

/**
 * How every import parses: a relaxed reader of real-world CSV (a quote inside quotes is doubled, rows of any length, stray quotes
 * inside unquoted cells, a BOM), skipping empty lines and rows of empty cells; each record with the
 * line it starts on.
 */
function csvOptions(separator: string, quote: string): Options {
  return {
    delimiter: separator, quote, escape: quote, bom: true, relax_column_count: true, relax_quotes: true,
    skip_empty_lines: true, skip_records_with_empty_values: true, skip_records_with_error: true,
    // Records become SourceRecords, which the library's types do not foresee.
    on_record: ((cells: string[], context: { lines: number }) => ({ cells, line: context.lines - newlines(cells) })) as unknown as Options['on_record'],
  };
}

/** The first `count` records of a source's beginning (complete lines), read as the import reads them. */
export function sampleRecords(sample: string, separator: string, quote: string, count: number): SourceRecord[] {
  return parseSync(sample, { ...csvOptions(separator, quote), to: count }) as unknown as SourceRecord[];
}

/** Line breaks inside a record's quoted cells (the record starts that many lines before it ends). */
function newlines(cells: string[]): number {
  let count = 0;
  for (const cell of cells) {
    for (let i = cell.indexOf('\n'); i >= 0; i = cell.indexOf('\n', i + 1)) count++;
  }
  return count;
}
