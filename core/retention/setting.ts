// An account's retention as the account API shows and changes it: `{days}`, stored in its
// settings (core/accounts/settings.ts retentionDays).
import type { Store } from '../../adapters/store/store';
import { readAccountSettings, updateAccountSettings } from '../accounts/settings';
import { errors, fieldError } from '../shared/errors';
import { isRetentionDays, MAX_RETENTION_DAYS, MIN_RETENTION_DAYS } from './policy';

export interface Retention { days: number }

export const RETENTION_DAYS_RULE = `A whole number of days from ${MIN_RETENTION_DAYS} to ${MAX_RETENTION_DAYS}`;

/** The account's retention; NOT_FOUND when there is no such account. */
export async function accountRetention(store: Store, account: string): Promise<Retention> {
  const settings = await readAccountSettings(store, account);
  if (!settings) throw errors.notFound('No such account');
  return { days: settings.retentionDays };
}

/** Sets the account's retention: from the next pruning (within the hour) it keeps `days` days of history. */
export async function setAccountRetention(store: Store, account: string, days: unknown): Promise<Retention> {
  if (!isRetentionDays(days)) throw errors.validation({ days: fieldError('invalid_value', RETENTION_DAYS_RULE) });
  const settings = await updateAccountSettings(store, account, { retentionDays: days });
  if (!settings) throw errors.notFound('No such account');
  return { days: settings.retentionDays };
}
