// The activity listing's time filters: ISO 8601 instants with a zone, and now-<n><unit>.
import { parseRelative, parseTimestamp } from '../../api/account/activity-query';

describe('parseTimestamp (filters.timestamp.gt)', () => {
  it.each([
    ['2026-03-01T08:00:00Z', '2026-03-01T08:00:00.000Z'],
    ['2026-03-01T08:00Z', '2026-03-01T08:00:00.000Z'],
    ['2026-03-01t08:00:00.5z', '2026-03-01T08:00:00.500Z'],
    ['2026-03-01T08:00:00.123456789Z', '2026-03-01T08:00:00.123Z'],
    ['2026-03-01T10:00:00+02:00', '2026-03-01T08:00:00.000Z'],
    ['2026-03-01T10:00:00+0200', '2026-03-01T08:00:00.000Z'],
    ['2026-03-01T10:00:00 02:00', '2026-03-01T08:00:00.000Z'], // an unencoded + in a query string
    ['2026-03-01T02:30:00-05:30', '2026-03-01T08:00:00.000Z'],
    ['2026-03-01 08:00:00Z', '2026-03-01T08:00:00.000Z'],
    ['2024-02-29T00:00:00Z', '2024-02-29T00:00:00.000Z'],
    ['2026-01-01T00:30:00+01:00', '2025-12-31T23:30:00.000Z'],
  ])('%s is %s', (text, iso) => {
    expect(parseTimestamp(text)?.toISOString()).toBe(iso);
  });

  it.each([
    '2026-03-01T08:00:00', '2026-03-01', '2025-02-29T00:00:00Z', '2026-04-31T00:00:00Z', '2026-13-01T00:00:00Z',
    '2026-03-01T24:00:00Z', '2026-03-01T08:60:00Z', '2026-03-01T08:00:60Z', '2026-03-01T08:00:00+24:00', '0999-01-01T00:00:00Z',
    ' 2026-03-01T08:00:00Z', '2026-03-01T08:00:00Z ', 'now-1h', '', '1772352000',
  ])('refuses %j', (text) => {
    expect(parseTimestamp(text)).toBeUndefined();
  });
});

describe('parseRelative (filters.timestamp.gtrel)', () => {
  it.each([
    ['now-30s', 30_000], ['now-1m', 60_000], ['now-1h', 3_600_000], ['now-5d', 5 * 86_400_000], ['now-2w', 14 * 86_400_000],
    ['now-0s', 0], ['now-3650d', 3650 * 86_400_000],
  ])('%s is %d ms back', (text, ms) => {
    expect(parseRelative(text)).toBe(ms);
  });

  it.each(['now-3651d', 'now-1y', 'now-1M', 'now+1h', 'now-1', 'now-h', '1h', 'NOW-1H', 'now-1H', 'now - 1h', 'now-1.5h', 'now-1h '])('refuses %j', (text) => {
    expect(parseRelative(text)).toBeUndefined();
  });
});
