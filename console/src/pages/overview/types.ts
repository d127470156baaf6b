/** GET /stats/daily's answer (api/account/stats.ts). */
export const COUNTS = ['sent', 'delivered', 'opened', 'clicked', 'bounced', 'unsubscribed', 'complained'] as const;
export type CountName = (typeof COUNTS)[number];
export type Counts = Record<CountName, number>;
export interface DailyStats {
  from: string;
  to: string;
  days: Array<Counts & { date: string }>;
  totals: Counts;
  rates: Record<Exclude<CountName, 'sent'>, number>;
}
