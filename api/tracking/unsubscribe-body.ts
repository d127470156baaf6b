// The body of a POST to an unsubscribe link: the page's form (`reason=…`), or RFC 8058 one-click
// (`List-Unsubscribe=One-Click`), which a mail client may encode as
// application/x-www-form-urlencoded or as multipart/form-data (RFC 8058 section 3.1); JSON too,
// like the rest of the account API. Only those two fields are read, from a small body read with a
// limit, and checked by the schema the OpenAPI document shows.
import coBody from 'co-body';
import type { Context } from 'koa';
import { errors } from '../../core/shared/errors';
import { httpErrors } from '../http-errors';
import { PAGE_REASONS, type PageReason } from '../../core/tracking/unsubscribe';
import { validator } from '../validation';

const LIMIT_BYTES = 8 * 1024;

export const unsubscribeBodySchema = {
  type: 'object', additionalProperties: false,
  properties: {
    reason: { type: 'string', enum: [...PAGE_REASONS], description: 'The reason chosen on the page; `not_interested` when absent.' },
    'List-Unsubscribe': { const: 'One-Click', description: 'RFC 8058 one-click: unsubscribes with reason `oneclick` (also taken as multipart/form-data).' },
  },
} as const;

const validate = validator<{ reason?: PageReason; 'List-Unsubscribe'?: 'One-Click' }>(unsubscribeBodySchema);

export interface UnsubscribeBody { oneClick: boolean; reason?: PageReason }

export async function readUnsubscribeBody(ctx: Context): Promise<UnsubscribeBody> {
  const hasBody = ctx.get('transfer-encoding') !== '' || (ctx.request.length ?? 0) > 0;
  const fields = validate(hasBody ? await readFields(ctx) : {});
  return { oneClick: fields['List-Unsubscribe'] === 'One-Click', ...(fields.reason ? { reason: fields.reason } : {}) };
}

async function readFields(ctx: Context): Promise<unknown> {
  const type = ctx.is('urlencoded', 'multipart/form-data', 'json', '+json');
  if (!type) throw httpErrors.unsupportedMediaType('Content-Type must be application/x-www-form-urlencoded, multipart/form-data or application/json');
  const text = await readText(ctx);
  if (type === 'urlencoded') return known(new URLSearchParams(text));
  if (type === 'multipart/form-data') return known(multipartFields(text, boundaryOf(ctx.get('content-type'))));
  if (text.trim() === '') return {};
  try {
    return JSON.parse(text);
  } catch {
    throw errors.badRequest('Request body is not valid JSON');
  }
}

/** The two fields this body may have, when present (an empty value counts as absent). */
function known(fields: { get(name: string): string | null | undefined }): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of ['reason', 'List-Unsubscribe']) {
    const value = fields.get(name);
    if (value) out[name] = value;
  }
  return out;
}

async function readText(ctx: Context): Promise<string> {
  try {
    return await coBody.text(ctx, { limit: LIMIT_BYTES, encoding: 'utf8' });
  } catch (error) {
    const { type, status } = error as { type?: string; status?: number };
    if (type === 'entity.too.large') throw httpErrors.payloadTooLarge(LIMIT_BYTES);
    if (typeof status === 'number' && status < 500) throw errors.badRequest('Request body could not be read');
    throw error;
  }
}

function boundaryOf(contentType: string): string {
  const match = /;\s*boundary=(?:"([^"]{1,70})"|([^\s;]{1,70}))/i.exec(contentType);
  if (!match) throw errors.badRequest('A multipart body needs a boundary');
  return match[1] ?? match[2];
}

/** The simple fields of a multipart/form-data body (name → value); files and anything else are ignored. */
function multipartFields(text: string, boundary: string): Map<string, string> {
  const fields = new Map<string, string>();
  for (const part of text.split(`--${boundary}`).slice(1)) {
    if (part.startsWith('--')) break; // the closing delimiter
    const split = part.indexOf('\r\n\r\n');
    if (split < 0) continue;
    const headers = part.slice(0, split);
    const name = /content-disposition:\s*form-data;[^\r\n]*?\bname="([^"]*)"/i.exec(headers)?.[1];
    if (name === undefined || /filename=/i.test(headers)) continue;
    fields.set(name, part.slice(split + 4).replace(/\r\n$/, ''));
  }
  return fields;
}
