// Files kept in the store: uploaded import sources and finished exports. They live in GridFS
// (chunks in the store), so any API or worker process reads what another wrote, and every
// file is scoped by its account like any document.
import { pipeline } from 'node:stream/promises';
import { Readable } from 'node:stream';
import type { GridFSFile, ObjectId } from 'mongodb';
import type { StoredFileMetadata, Store } from './store';

/** Names clients see and send back: letters, digits, dot, dash and underscore only (no paths). */
export const FILE_NAME = /^[A-Za-z0-9._-]{1,200}$/;

export interface StoredFile { id: ObjectId; name: string; length: number; contentType: string; uploaded: Date }

/** Stores `source` under `name` in the account; the name must be new (names carry a time stamp or random part). */
export async function saveFile(
  store: Store, account: string, name: string, kind: StoredFileMetadata['kind'], contentType: string,
  source: Readable | AsyncIterable<string | Buffer> | Buffer | string,
): Promise<StoredFile> {
  const metadata: StoredFileMetadata = { account, kind, contentType };
  const upload = store.files.openUploadStream(name, { metadata });
  const input = typeof source === 'string' || Buffer.isBuffer(source) ? Readable.from([Buffer.from(source)])
    : source instanceof Readable ? source : Readable.from(source);
  try {
    await pipeline(input, upload);
  } catch (error) {
    await upload.abort().catch(() => undefined); // drops the chunks written so far
    throw error;
  }
  return { id: upload.id, name, length: upload.gridFSFile?.length ?? 0, contentType, uploaded: new Date() };
}

/** The account's file with that name, or null. */
export async function findFile(store: Store, account: string, name: string): Promise<StoredFile | null> {
  if (!FILE_NAME.test(name)) return null;
  const files = await store.files.find({ filename: name, 'metadata.account': account }).limit(1).toArray();
  return files[0] ? toStoredFile(files[0]) : null;
}

/** The file's bytes as a stream (after findFile, which checked the account). */
export function openFile(store: Store, file: StoredFile): Readable {
  return store.files.openDownloadStream(file.id);
}

/** Removes the account's file of that name, if there is one. */
export async function deleteFile(store: Store, account: string, name: string): Promise<void> {
  const file = await findFile(store, account, name);
  if (file) await store.files.delete(file.id).catch(() => undefined); // already gone: fine
}

function toStoredFile(file: GridFSFile): StoredFile {
  const metadata = file.metadata as StoredFileMetadata | undefined;
  return { id: file._id, name: file.filename, length: file.length, contentType: metadata?.contentType ?? 'application/octet-stream', uploaded: file.uploadDate };
}
