// What a failed bulk write (insertMany, bulkWrite) says of its statements. A module of its own,
// without a value import of the driver: the write batchers (adapters/batching/turn-batch.ts) use
// it, and they are loaded on paths that must not load the driver (the CLI reads its arguments first).
import type { WriteError } from 'mongodb';

/**
 * The statements of a failed bulk write (insertMany, bulkWrite) that the store refused one by one
 * (a duplicate key, say), by index: every other statement was written. Throws `error` again when
 * it names no such statement: the driver wraps every failure of a bulk write in a
 * MongoBulkWriteError, a lost connection or a refused command too, with no write errors, and then
 * no statement is known to be written. (Read by shape, not by class: jest test files load their
 * own copy of the driver.)
 */
export function refusedStatements(error: unknown): Map<number, WriteError> {
  const writeErrors = (error as { writeErrors?: WriteError | WriteError[] } | null)?.writeErrors;
  const refused = writeErrors === undefined ? [] : [writeErrors].flat();
  if (refused.length === 0) throw error;
  return new Map(refused.map((writeError) => [writeError.index, writeError]));
}

/** True for one statement's refusal as refusedStatements gives it (the driver's WriteError, whose class it does not export). */
export function isRefusedStatement(error: unknown): error is WriteError {
  const statement = error as Partial<Record<'index' | 'code' | 'errmsg', unknown>> | null;
  return typeof statement === 'object' && statement !== null && !(error instanceof Error)
    && typeof statement.index === 'number' && typeof statement.code === 'number' && typeof statement.errmsg === 'string';
}
