import type Router from '@koa/router';
import type { Context } from 'koa';
import { dailyStats, DAILY_COUNTS } from '../../core/tracking/daily-stats';
import { errors, fieldError, type FieldError } from '../../core/shared/errors';
import type { Store } from '../../adapters/store/store';
import { accountResource } from '../openapi/operation';
import { requirePermission } from './auth';
import { reply } from './envelope';

const DAY_MS = 86_400_000;
export const DEFAULT_DAYS = 30;
export const MAX_DAYS = 366;

/** Per-day counts of the account's mail (`GET /v2/{account}/stats/daily`). */
export function statsRoutes(router: Router, store: Store): void {
  router.get('/stats/daily', requirePermission('activity:list'), async (ctx) => {
    const { from, to } = parseRange(ctx);
    reply(ctx, { data: await dailyStats(store, ctx.params.account, from, to) });
  });
}

/** `from` and `to` as UTC days, both included: by default the last 30 days ending today. */
export function parseRange(ctx: Context, now = new Date()): { from: string; to: string } {
  const problems: Record<string, FieldError> = {};
  const day = (name: 'from' | 'to'): number | undefined => {
    const value = ctx.query[name];
    if (value === undefined || value === '') return undefined;
    const time = typeof value === 'string' && /^\d{4}-\d{2}-\d{2}$/.test(value) ? Date.parse(`${value}T00:00:00.000Z`) : NaN;
    // Date.parse rolls 2026-02-30 over to March: the day must come back unchanged.
    if (Number.isNaN(time) || new Date(time).toISOString().slice(0, 10) !== value) {
      problems[name] = fieldError('invalid_value', 'Must be a day as YYYY-MM-DD (UTC)');
      return undefined;
    }
    return time;
  };
  const given = { from: day('from'), to: day('to') };
  const to = given.to ?? today(now);
  const from = given.from ?? to - (DEFAULT_DAYS - 1) * DAY_MS;
  if (Object.keys(problems).length === 0) {
    if (from > to) problems.from = fieldError('invalid_value', 'Must not be after to');
    else if ((to - from) / DAY_MS + 1 > MAX_DAYS) problems.to = fieldError('invalid_value', `The range may span at most ${MAX_DAYS} days`);
  }
  if (Object.keys(problems).length > 0) throw errors.validation(problems);
  const text = (time: number) => new Date(time).toISOString().slice(0, 10);
  return { from: text(from), to: text(to) };
}

const today = (now: Date) => Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());

const count = { type: 'integer', minimum: 0 } as const;
const rate = { type: 'number', minimum: 0, maximum: 1 } as const;
const dayText = { type: 'string', format: 'date' } as const;
const counts = Object.fromEntries(DAILY_COUNTS.map((name) => [name, count]));
const RATES = ['delivered', 'opened', 'clicked', 'bounced', 'unsubscribed', 'complained'];

const statsEnvelope = {
  type: 'object',
  required: ['href', 'success', 'data'],
  properties: {
    href: { type: 'string' },
    success: { const: true },
    data: {
      type: 'object',
      required: ['from', 'to', 'days', 'totals', 'rates'],
      properties: {
        from: dayText,
        to: dayText,
        days: {
          type: 'array',
          description: 'Every day of the range, oldest first, zeros included.',
          items: { type: 'object', required: ['date', ...DAILY_COUNTS], properties: { date: dayText, ...counts } },
        },
        totals: { type: 'object', required: [...DAILY_COUNTS], properties: counts },
        rates: {
          type: 'object', required: RATES, properties: Object.fromEntries(RATES.map((name) => [name, rate])),
          description: 'Fractions of the totals (4 decimals): delivered and bounced of sent; opened, clicked, unsubscribed and complained '
            + 'of delivered; 0 when the denominator is 0.',
        },
      },
    },
  },
} as const;

export const statsOperations = accountResource('Activity', [{
  method: 'get', path: '/v2/{account}/stats/daily', id: 'dailyStats', summary: 'Per-day counts of the account\'s mail',
  description: 'Transactional, campaign and automation mail alike, counted from the account\'s events by UTC day (the event\'s `timestamp`); '
    + 'the counts of messages older than the account\'s retention were kept when their events were pruned, so a day reads the same after. '
    + '`sent`: messages handed to the relay, or refused by it at sending. `delivered`: of the messages sent that day, those without a '
    + 'bounce so far (a later bounce report lowers the day of its send). `opened` and `clicked`: messages opened or clicked for the first '
    + 'time that day (`first_opened`, `first_clicked`: unique messages, not hits). `bounced`: messages whose first bounce (a refusal at '
    + 'sending or a report; hard or soft) came that day. `unsubscribed`: unsubscriptions (page or one-click) that day; `complained`: '
    + 'complaint reports (`unsubscribed` with reason `spam_fbl`), not in `unsubscribed`. `dropped` (Herald\'s addition): messages never '
    + 'sent (suppressed address, cancelled batch).',
  permissions: ['activity:list'], status: 200, response: 'The counts of each day, their totals and rates', responseSchema: statsEnvelope,
  query: [
    { name: 'from', allowEmptyValue: true, schema: dayText, description: `The first day (UTC, YYYY-MM-DD); by default ${DEFAULT_DAYS - 1} days before \`to\`.` },
    { name: 'to', allowEmptyValue: true, schema: dayText, description: `The last day, included; by default today (UTC). At most ${MAX_DAYS} days from \`from\`, not before it.` },
  ],
}]);
