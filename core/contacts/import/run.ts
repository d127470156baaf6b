// A contacts import from start to end: the file streamed from the store through csv-parse, rows
// checked, batches of BATCH_ROWS written in bulk while the next batch is being read, and after
// each batch a checkpoint (where the file was read up to, and the counts) from which a retry
// resumes. The caller (the ContactImport activity) reports progress and stops a cancelled run.
import { MongoGridFSChunkError, MongoRuntimeError } from 'mongodb';
import { findFile } from '../../../adapters/store/files';
import { InterestsByName } from './interests';
import type { ImportParameters } from './options';
import { prepareRow, rowRules, type PreparedRow } from './rows';
import { streamRecords, type SkippedRecord } from './source';
import { reserveContactIds, writeBatch, type BatchTarget, type ImportRow } from './write';
import type { FieldDoc, Store } from '../../../adapters/store/store';

export const BATCH_ROWS = 1000;
export const MAX_ERROR_SAMPLES = 100;
/** Characters of one sample's message: the samples travel in every heartbeat's checkpoint. */
const MAX_MESSAGE = 300;

export interface ErrorSample { row: number; message: string }

/** The task's result: rows read (the header aside), what became of them, and the first errors. */
export interface ImportCounts {
  rows: number; created: number; updated: number; ignored: number; errors: number; errorSamples: ErrorSample[];
}

/** Where a run got to: every record starting on a line up to `line` is done and counted. */
export interface ImportCheckpoint { line: number; counts: ImportCounts }

/** An import that cannot run as asked (its file or a list is gone): the message is for the user. */
export class ImportInputError extends Error {}

export interface ImportRun {
  store: Store;
  account: string;
  parameters: ImportParameters;
  resumeFrom?: ImportCheckpoint;
  /** Set on a retry: when the first attempt began (see BatchTarget.earlierAttemptsSince). */
  earlierAttemptsSince?: Date;
  /** Before each batch is written; throws to stop (the task was cancelled). */
  beforeWrite(): Promise<void>;
  /** After each batch is written: the checkpoint, and how far the file was read. */
  afterWrite(checkpoint: ImportCheckpoint, bytesRead: number, totalBytes: number): Promise<void>;
}

interface Batch { rows: Array<{ line: number; row: PreparedRow }>; errors: ErrorSample[]; records: number; lastLine: number }
const newBatch = (): Batch => ({ rows: [], errors: [], records: 0, lastLine: 0 });

export function summary(counts: ImportCounts): string {
  return `Imported ${counts.rows} rows: ${counts.created} created, ${counts.updated} updated, ${counts.ignored} ignored, ${counts.errors} with errors`;
}

export async function runImport(run: ImportRun): Promise<ImportCounts> {
  const { store, account, parameters: p } = run;
  const file = await findFile(store, account, p.sourceFile);
  if (!file) throw new ImportInputError(`The file ${p.sourceFile} is no longer there: upload it again and start a new import`);
  const rules = rowRules(p, await referencesStillThere(store, account, p));
  const interests = p.interestColumn !== null ? await InterestsByName.load(store, account, p.interestDefaultExpirationDays) : null;
  const target: BatchTarget = { account, list: p.list, interests: p.interests, mode: p.mode, earlierAttemptsSince: run.earlierAttemptsSince };
  const checkpoint: ImportCheckpoint = structuredClone(run.resumeFrom ?? { line: 0, counts: { rows: 0, created: 0, updated: 0, ignored: 0, errors: 0, errorSamples: [] } });
  const doneUpTo = checkpoint.line;
  const seen = new Map<string, number>();
  const skipped: SkippedRecord[] = [];
  let batch = newBatch();
  let writing: Promise<void> = Promise.resolve();

  /** Writes a batch while the next one is read; one write at a time, checkpoints in file order. */
  const write = async (full: Batch, bytesRead: number) => {
    // Reserved while the previous batch is still being written: on the durable store the counter's
    // write then shares that insert's commit instead of waiting for one of its own.
    const ids = reserveContactIds(store, account, full.rows.length);
    ids.catch(() => undefined); // awaited below, unless the run stops first
    await writing;
    await run.beforeWrite();
    writing = (async () => {
      const counts = await commit(store, target, interests, full, await ids);
      const c = checkpoint.counts;
      c.rows += full.records;
      c.created += counts.created;
      c.updated += counts.updated;
      c.ignored += counts.ignored;
      c.errors += full.errors.length;
      c.errorSamples.push(...full.errors.slice(0, MAX_ERROR_SAMPLES - c.errorSamples.length));
      checkpoint.line = Math.max(checkpoint.line, full.lastLine);
      await run.afterWrite(structuredClone(checkpoint), bytesRead, file.length); // a copy: the heartbeat may be sent later
    })();
    writing.catch(() => undefined); // awaited by the next write or at the end
  };
  /** Unreadable records the parser skipped before `line` join the batch in file order. */
  const takeSkipped = (line: number) => {
    while (skipped.length > 0 && skipped[0].line < line) {
      const skip = skipped.shift()!;
      if (skip.line <= doneUpTo) continue;
      batch.records += 1;
      batch.errors.push({ row: skip.line, message: `Unreadable row: ${skip.message}`.slice(0, MAX_MESSAGE) });
      batch.lastLine = skip.line;
    }
  };

  await streamRecords(store, file, { separator: p.columnSeparator, quote: p.stringDelimiter, encoding: p.sourceFileEncoding },
    (skip) => skipped.push(skip),
    async (records, bytesRead) => {
      let header = p.columnHeaders;
      for await (const { cells, line } of records) {
        if (header) { header = false; continue; }
        takeSkipped(line);
        const row = prepareRow(cells, rules);
        if (row.problems.length === 0 && row.email) {
          const first = seen.get(row.email);
          if (first !== undefined) row.problems.push(`Duplicate of row ${first} (same email ${row.email})`);
          else seen.set(row.email, line);
        }
        if (line <= doneUpTo) continue; // an earlier attempt did it: only its email is remembered
        batch.records += 1;
        batch.lastLine = line;
        if (row.problems.length > 0) batch.errors.push({ row: line, message: row.problems.join('; ').slice(0, MAX_MESSAGE) });
        else batch.rows.push({ line, row });
        if (batch.records >= BATCH_ROWS) {
          await write(batch, bytesRead());
          batch = newBatch();
        }
      }
      takeSkipped(Infinity);
      await write(batch, bytesRead());
      await writing;
    }).catch((error: unknown) => { throw unreadable(error, p.sourceFile) ?? error; });
  return checkpoint.counts;
}

/** A file whose chunks are missing or gone while it was read cannot be imported, however often it is retried. */
function unreadable(error: unknown, name: string): ImportInputError | undefined {
  if (error instanceof MongoGridFSChunkError) return new ImportInputError(`The file ${name} is damaged (${error.message}): upload it again`);
  if (error instanceof MongoRuntimeError && error.message.startsWith('FileNotFound')) {
    return new ImportInputError(`The file ${name} was deleted during the import: upload it again and start a new import`);
  }
  return undefined;
}

/** Interest names to ids (new interests created), then the batch's valid rows written. */
async function commit(store: Store, target: BatchTarget, interests: InterestsByName | null, batch: Batch, firstId: number) {
  if (interests) await interests.createMissing(batch.rows.flatMap(({ row }) => row.interestNames));
  const rows: ImportRow[] = [];
  for (const { line, row } of batch.rows) {
    const ids = row.interestNames.map((name) => interests?.idOf(name));
    if (ids.some((id) => id === undefined)) {
      batch.errors.push({ row: line, message: 'Too many new interest names in this import: the rest are not created' });
      continue;
    }
    rows.push({ line, email: row.email!, values: row.values, customFields: row.customFields, interests: ids as number[] });
  }
  batch.errors.sort((a, b) => a.row - b.row);
  return writeBatch(store, target, rows, firstId);
}

/** The custom fields the columns name; the list, interests and fields must still exist (checked at launch, maybe deleted since). */
async function referencesStillThere(store: Store, account: string, p: ImportParameters): Promise<Map<number, FieldDoc>> {
  const [list, interests, fields] = await Promise.all([
    p.list === null ? null : store.lists.findOne({ _id: `${account}:${p.list}`, account }),
    store.interests.find({ account, id: { $in: p.interests } }).project<{ id: number }>({ id: 1 }).toArray(),
    store.fields.find({ account }).toArray(),
  ]);
  if (p.list !== null && !list) throw new ImportInputError(`The list ${p.list} was deleted: start a new import`);
  const missing = p.interests.filter((id) => !interests.some((i) => i.id === id));
  if (missing.length > 0) throw new ImportInputError(`The interest ${missing[0]} was deleted: start a new import`);
  const byId = new Map(fields.map((f) => [f.id, f]));
  const gone = p.columnFields.find((id) => id >= 10 && !byId.has(id));
  if (gone !== undefined) throw new ImportInputError(`The custom field ${gone} was deleted: start a new import`);
  return byId;
}
