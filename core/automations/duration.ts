// A wait step's length: an ISO 8601 duration in the forms a fixed clock can measure. Years and
// months are refused (their length depends on the date they start from), and so are fractions:
// `P1.5D` is written `P1DT12H`.

/** The shortest and longest wait a step may have. */
export const MIN_WAIT_SECONDS = 1;
export const MAX_WAIT_SECONDS = 365 * 24 * 3600;

// PnW alone, or PnDTnHnMnS with any of its parts (at least one; T only before a time part).
const WEEKS = /^P(\d{1,6})W$/;
const DAYS_TIME = /^P(?:(\d{1,6})D)?(?:T(?:(\d{1,9})H)?(?:(\d{1,9})M)?(?:(\d{1,9})S)?)?$/;

const UNIT = { day: 86_400, hour: 3600, minute: 60 };

/** The duration's length in seconds, or null when it is no duration of these forms. */
function secondsOf(text: string): number | null {
  const weeks = WEEKS.exec(text);
  if (weeks) return Number(weeks[1]) * 7 * UNIT.day;
  const parts = DAYS_TIME.exec(text);
  // `P` alone, or a `T` with no time part after it, says nothing.
  if (!parts || text === 'P' || text.endsWith('T')) return null;
  const [, d, h, m, s] = parts.map((part) => Number(part ?? 0));
  return d * UNIT.day + h * UNIT.hour + m * UNIT.minute + s;
}

/** What is wrong with a wait duration, or its length in seconds. */
export function parseWaitDuration(text: string): { seconds: number } | { problem: string } {
  const seconds = secondsOf(text);
  if (seconds === null) {
    return { problem: 'Must be an ISO 8601 duration: PnW or PnDTnHnMnS (P2D, PT3H, PT1H30M, P1W; whole numbers, no years or months)' };
  }
  if (seconds < MIN_WAIT_SECONDS || seconds > MAX_WAIT_SECONDS) return { problem: 'Must be from 1 second (PT1S) to 365 days (P365D)' };
  return { seconds };
}
