// The range's figures: tiles of totals and rates, two uPlot charts, and the same numbers per day in a table.
import { useMemo } from 'preact/hooks';
import { LineChart, type Series } from '../../components/chart';
import { Section } from '../../components/page';
import { Table } from '../../components/table';
import { count, day, percent } from '../../format';
import './overview.css';
import { COUNTS, type CountName, type DailyStats } from './types';

const LABELS: Record<CountName, string> = {
  sent: 'Sent', delivered: 'Delivered', opened: 'Opened', clicked: 'Clicked', bounced: 'Bounced', unsubscribed: 'Unsubscribed', complained: 'Complained',
};
/** Line colours distinct enough side by side, dark enough on white. */
const COLORS: Record<CountName, string> = {
  sent: '#1f5fbf', delivered: '#1a7f37', bounced: '#b3261e', opened: '#6f42c1', clicked: '#0b7285', unsubscribed: '#9a6700', complained: '#c2185b',
};
const RATE_OF: Partial<Record<CountName, string>> = {
  delivered: 'of sent', bounced: 'of sent', opened: 'of delivered', clicked: 'of delivered', unsubscribed: 'of delivered', complained: 'of delivered',
};

export function StatTiles({ stats }: { stats: DailyStats }) {
  return (
    <dl class="stats overview-stats" aria-label="Totals of the range">
      {COUNTS.map((name) => (
        <div class="stat" key={name}>
          <dt>{LABELS[name]}</dt>
          <dd>
            {count(stats.totals[name])}
            {name !== 'sent' && <span class="rate"> {percent(stats.rates[name])} {RATE_OF[name]}</span>}
          </dd>
        </div>
      ))}
    </dl>
  );
}

export function DailyCharts({ stats }: { stats: DailyStats }) {
  // Stable arrays: the chart redraws only when the figures change.
  const times = useMemo(() => stats.days.map((d) => Date.parse(`${d.date}T00:00:00Z`) / 1000), [stats]);
  const series = (names: CountName[]): Series[] => names.map((name) => ({ label: LABELS[name], color: COLORS[name], values: stats.days.map((d) => d[name]) }));
  const volume = useMemo(() => series(['sent', 'delivered', 'bounced']), [stats]);
  const engagement = useMemo(() => series(['opened', 'clicked', 'unsubscribed', 'complained']), [stats]);
  return (
    <div class="grid">
      <Section title="Volume"><LineChart title="Sent, delivered and bounced per day" times={times} series={volume} /></Section>
      <Section title="Engagement"><LineChart title="Opened, clicked, unsubscribed and complained per day" times={times} series={engagement} /></Section>
    </div>
  );
}

export function DailyTable({ stats }: { stats: DailyStats }) {
  // Newest day first: the one people look for.
  const rows = useMemo(() => [...stats.days].reverse(), [stats]);
  return (
    <Table caption={`Mail per day from ${stats.from} to ${stats.to}`} rows={rows} rowKey={(d) => d.date}
      columns={[
        { label: 'Day', cell: (d) => <time dateTime={d.date}>{day(d.date)}</time> },
        ...COUNTS.map((name) => ({ label: LABELS[name], numeric: true, cell: (d: (typeof rows)[number]) => count(d[name]) })),
      ]} />
  );
}
