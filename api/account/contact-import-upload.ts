// POST /contacts/import/upload: a CSV file in the multipart part `fileToUpload`, streamed into the
// store as it arrives (never held whole in memory), under a new unguessable name that the client
// then gives an import as `sourceFile`. Beyond MAX_UPLOAD_BYTES the upload stops at once (413)
// and nothing of it is kept.
import type Router from '@koa/router';
import busboy, { type Busboy } from 'busboy';
import type { Context } from 'koa';
import type { Readable } from 'node:stream';
import { MAX_UPLOAD_BYTES, sourceFileName } from '../../core/contacts/import/start';
import { AppError, errors } from '../../core/shared/errors';
import { httpErrors } from '../http-errors';
import { deleteFile, findFile, saveFile } from '../../adapters/store/files';
import type { Store } from '../../adapters/store/store';
import { requirePermission } from './auth';
import { reply } from './envelope';

export const UPLOAD_FIELD = 'fileToUpload';
/** Room for the multipart framing around the file, when the request announces its length. */
const FRAMING_BYTES = 64 * 1024;

export function uploadRoute(router: Router, store: Store): void {
  router.post('/contacts/import/upload', requirePermission('contacts:create'), async (ctx) => {
    if (!ctx.is('multipart/form-data')) throw httpErrors.unsupportedMediaType(`Content-Type must be multipart/form-data, with the file in the part ${UPLOAD_FIELD}`);
    const encoding = ctx.get('content-encoding').toLowerCase();
    if (encoding !== '' && encoding !== 'identity') throw httpErrors.unsupportedMediaType('Send the upload without Content-Encoding');
    if ((ctx.request.length ?? 0) > MAX_UPLOAD_BYTES + FRAMING_BYTES) throw tooLarge(ctx);
    const account: string = ctx.params.account;
    const name = await receive(ctx, store, account);
    const file = await findFile(store, account, name);
    if (!file || file.length === 0) {
      await deleteFile(store, account, name);
      throw errors.badRequest('The file is empty');
    }
    reply(ctx, { data: { id: name } }); // 200, as the original answers an upload
  });
}

/** 413, closing the connection: the rest of the body is not read. */
function tooLarge(ctx: Context): AppError {
  ctx.set('Connection', 'close');
  return httpErrors.payloadTooLarge(MAX_UPLOAD_BYTES);
}

const LIMIT = new Error('upload too large');

/** Streams the file part into the store; its name. Any failure leaves nothing stored. */
async function receive(ctx: Context, store: Store, account: string): Promise<string> {
  let parser: Busboy;
  try {
    parser = busboy({ headers: ctx.req.headers, limits: { files: 1, fileSize: MAX_UPLOAD_BYTES, fields: 20, fieldSize: 1024, parts: 30 } });
  } catch (error) {
    throw errors.badRequest(`The multipart body cannot be read: ${(error as Error).message}`);
  }
  let saving: Promise<string> | undefined;
  let file: Readable | undefined;
  const received = new Promise<string>((resolve, reject) => {
    const fail = (error: unknown) => {
      ctx.req.unpipe(parser);
      file?.destroy(LIMIT === error ? LIMIT : new Error('upload failed')); // an unfinished save aborts and drops its chunks
      void saving?.then((name) => deleteFile(store, account, name), () => undefined);
      reject(error);
    };
    parser.on('file', (field, stream, info) => {
      if (field !== UPLOAD_FIELD || saving) {
        stream.resume(); // other files are read past, not kept
        return;
      }
      file = stream;
      const name = sourceFileName('upload', info.filename);
      stream.on('limit', () => fail(LIMIT));
      saving = saveFile(store, account, name, 'upload', 'text/csv', stream).then(() => name);
      saving.catch((error: unknown) => fail(error === LIMIT ? LIMIT : error));
    });
    parser.on('error', (error: Error) => fail(errors.badRequest(`The multipart body cannot be read: ${error.message}`)));
    parser.on('close', () => {
      if (!saving) fail(errors.badRequest(`No file in a part named ${UPLOAD_FIELD}`));
      else saving.then(resolve, () => undefined);
    });
    ctx.req.on('close', () => { if (!ctx.req.complete) fail(errors.badRequest('The upload was interrupted')); });
  });
  ctx.req.pipe(parser);
  try {
    return await received;
  } catch (error) {
    if (error === LIMIT) throw tooLarge(ctx);
    throw error;
  }
}
