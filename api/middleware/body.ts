import type { IncomingMessage } from 'node:http';
import coBody from 'co-body';
import type { Context, Next } from 'koa';
import qs from 'qs';
import { AppError, errors } from '../../core/shared/errors';
import { httpErrors } from '../http-errors';
import { markFormBody } from '../validation';
import { checkJsonDepth, checkStructure, DEFAULT_LIMITS, LimitError, type StructureLimits } from '../../core/shared/limits';

declare module 'koa' {
  interface Request {
    /** The parsed, limit-checked body (set by readBody). */
    body?: unknown;
  }
}

export type BodyType = 'json' | 'form';

export interface BodyOptions {
  /** Media types read: JSON (`application/json`, `+json`) and/or form (`application/x-www-form-urlencoded`). */
  types: BodyType[];
  /** Bytes after decompression; beyond → 413 without reading the rest. */
  limitBytes: number;
  limits?: StructureLimits;
  /**
   * Form keys with an index (`fields[3]=…`) stay object keys (`{fields: {3: …}}`). By default qs
   * turns them into an array and compacts it, losing the index: `fields[3]=a` reads as `['a']`.
   * The public opt-in submit names field ids this way. `a[]=x&a[]=y` then reads as `{a: {0: [x, y]}}`.
   */
  indexedFormKeys?: boolean;
}

const MEDIA: Record<BodyType, string[]> = { json: ['json', '+json'], form: ['urlencoded'] };

/**
 * Reads, parses and checks a request body at the door, for every interface: size, nesting,
 * keys and items per container, key names. Sets ctx.request.body (undefined when the request
 * has no body or an empty one). Nothing downstream sees a body that broke a limit.
 */
export function readBody(options: BodyOptions) {
  const limits = options.limits ?? DEFAULT_LIMITS;
  return async (ctx: Context, next: Next) => {
    ctx.request.body = hasBody(ctx) ? await parse(ctx, options, limits) : undefined;
    await next();
  };
}

async function parse(ctx: Context, options: BodyOptions, limits: StructureLimits): Promise<unknown> {
  const type = options.types.find((t) => ctx.is(...MEDIA[t]));
  if (!type) {
    const accepted = options.types.map((t) => (t === 'json' ? 'application/json' : 'application/x-www-form-urlencoded'));
    throw httpErrors.unsupportedMediaType(`Content-Type must be ${accepted.join(' or ')}`);
  }
  const text = await readText(ctx, options.limitBytes);
  if (text.trim() === '') return undefined;
  try {
    if (type === 'json') {
      checkJsonDepth(text, limits.maxDepth);
      const value = parseJson(text);
      // `null` or a lone value is no request: refused, not read as an empty body (which some routes take as "everything").
      if (value === null || typeof value !== 'object') throw errors.badRequest(`The JSON body must be an object, not ${value === null ? 'null' : typeof value}`);
      checkStructure(value, limits);
      return value;
    }
    const value = qs.parse(text, {
      depth: limits.maxDepth,
      strictDepth: true,
      parameterLimit: limits.maxKeys,
      arrayLimit: limits.maxItems,
      throwOnLimitExceeded: true,
      allowPrototypes: false,
      parseArrays: !options.indexedFormKeys,
      charset: 'utf-8',
    });
    checkStructure(value, limits);
    markFormBody(value);
    return value;
  } catch (error) {
    if (error instanceof AppError) throw error;
    if (error instanceof LimitError || error instanceof RangeError) throw errors.badRequest(`Request body refused: ${error.message}`);
    throw error;
  }
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw errors.badRequest('Request body is not valid JSON');
  }
}

/** The body as UTF-8 text, inflated if compressed, stopping as soon as it passes the limit (raw bodies read it too). */
export async function readText(ctx: Context, limitBytes: number): Promise<string> {
  try {
    return await coBody.text(ctx, { limit: limitBytes, encoding: 'utf8' });
  } catch (error) {
    const { type, status } = error as { type?: string; status?: number };
    if (type === 'entity.too.large') {
      await discardRest(ctx, limitBytes * DISCARD_FACTOR);
      throw httpErrors.payloadTooLarge(limitBytes);
    }
    if (status === 415) throw httpErrors.unsupportedMediaType('Unsupported Content-Encoding');
    if (typeof status === 'number' && status < 500) throw errors.badRequest('Request body could not be read');
    throw error;
  }
}

/** A refused body is read to its end (and dropped) up to this many times the limit before the 413. */
const DISCARD_FACTOR = 2;

/**
 * Reads and drops what is left of a refused body, up to `cap` bytes, before the 413 is sent. An
 * answer sent while the client still uploads leaves the rest to Node's keep-alive handling: the
 * socket's keep-alive timer starts with the answer, and a client slowed down for a few seconds (a
 * busy machine) finds its connection reset mid-upload, before it reads the 413. A body beyond the
 * cap is not read: the answer says `Connection: close`, and the socket ends with it.
 */
async function discardRest(ctx: Context, cap: number): Promise<void> {
  const req: IncomingMessage = ctx.req;
  const declared = ctx.request.length;
  if (req.complete || req.destroyed) return;
  if (declared !== undefined && declared > cap) {
    ctx.set('Connection', 'close');
    return;
  }
  req.unpipe(); // from a decompressing stream, if any: the raw bytes are dropped here
  await new Promise<void>((resolve) => {
    let seen = 0;
    const finish = () => {
      req.off('data', onData).off('end', finish).off('close', finish).off('error', finish);
      resolve();
    };
    const onData = (chunk: Buffer) => {
      seen += chunk.length;
      if (seen > cap) {
        req.pause();
        ctx.set('Connection', 'close');
        finish();
      }
    };
    req.on('data', onData).on('end', finish).on('close', finish).on('error', finish);
    req.resume();
  });
}

function hasBody(ctx: Context): boolean {
  return ctx.get('transfer-encoding') !== '' || (ctx.request.length ?? 0) > 0;
}
