// Small numeric helpers for benchmark figures.

/** Nearest-rank percentile (p in 0..100) of a list of numbers; NaN when the list is empty. */
export function percentile(values: number[], p: number): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length - 1, Math.max(0, rank - 1))];
}

/** Events per second over a span in milliseconds, rounded to one decimal. */
export function perSecond(count: number, ms: number): number {
  return ms > 0 ? round((count * 1000) / ms) : NaN;
}

export function round(value: number, digits = 1): number {
  const f = 10 ** digits;
  return Math.round(value * f) / f;
}
