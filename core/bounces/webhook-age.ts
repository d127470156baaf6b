// How old a signed webhook request may be: a signature over a timestamp proves when the provider
// signed it, so a request captured and posted again later is refused once it is older than this.
import { errors } from '../shared/errors';

/** Ten minutes either way (a clock a little ahead of ours is not a replay). */
export const MAX_WEBHOOK_AGE_SECONDS = 10 * 60;

/** Throws 401 unless `timestamp` (Unix seconds, as text) is within MAX_WEBHOOK_AGE_SECONDS of `now`. */
export function checkWebhookAge(timestamp: string, now: Date, provider: string): void {
  if (!/^\d{1,12}$/.test(timestamp)) throw errors.unauthorized(`The ${provider} signature's timestamp is missing or not Unix seconds`);
  const age = now.getTime() / 1000 - Number(timestamp);
  if (Math.abs(age) > MAX_WEBHOOK_AGE_SECONDS) {
    throw errors.unauthorized(`The ${provider} signature's timestamp is ${Math.round(Math.abs(age))} s ${age > 0 ? 'old' : 'ahead'}: `
      + `at most ${MAX_WEBHOOK_AGE_SECONDS} s is taken (a replayed request is refused)`);
  }
}
