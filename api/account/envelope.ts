import type { Context } from 'koa';
import type { ListOptions } from './list-options';

export interface Paging { offset: number; limit: number; results: number; total: number }
/** The activity listing's paging: `next` is the next page's link, empty on the last page. */
export interface CursorPaging { next: string; total: number; results: number }

export interface Reply {
  status?: number;
  data?: unknown;
  paging?: Paging | CursorPaging;
  sort?: { sortby: string; sortdir: 'asc' | 'desc' };
  /** An asynchronous operation's task, in place of data. */
  task?: unknown;
  /** Set on a create, as the original does for lists. */
  location?: string;
  /** The original answers login and logout with `url` where the rest carries `href`. */
  pathKey?: 'href' | 'url';
  /** Herald's own members beside the envelope's (the activity's `retention`). */
  extra?: Record<string, unknown>;
}

/** Writes a successful account API answer in the envelope: `{href, success, data | task, paging?, sort?}`. */
export function reply(ctx: Context, { status = 200, data, paging, sort, task, location, pathKey = 'href', extra }: Reply): void {
  ctx.status = status;
  if (location) ctx.set('Location', location);
  ctx.body = {
    [pathKey]: ctx.path,
    success: true,
    ...(data !== undefined ? { data } : {}),
    ...(task !== undefined ? { task } : {}),
    ...(paging ? { paging } : {}),
    ...(sort ? { sort } : {}),
    ...extra,
  };
}

/** A listing's answer: the page, with `paging` and the `sort` it used. */
export function replyPage(ctx: Context, options: ListOptions, data: unknown[], total: number): void {
  reply(ctx, {
    data,
    paging: { offset: options.offset, limit: options.limit, results: data.length, total },
    sort: { sortby: options.sortby, sortdir: options.sortdir },
  });
}
