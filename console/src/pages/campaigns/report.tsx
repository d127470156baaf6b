// A campaign's report (GET …/report): the figures of …/metrics as tiles, opens and clicks over
// time (chart and table), the most clicked links, the latest bounces and unsubscriptions. Read
// again every few seconds while the campaign is being sent, so the counts grow as it goes.
import { useEffect, useMemo, useState } from 'preact/hooks';
import { parseISO } from 'date-fns';
import { accountPath } from '../../api';
import { useApi } from '../../hooks';
import { count, dateTime, percent } from '../../format';
import { to } from '../../routes';
import { Loading, Page, Section } from '../../components/page';
import { Table } from '../../components/table';
import { LineChart } from '../../components/chart';
import { StateBadge } from './state-badge';
import { campaignPath, isSending, type Campaign } from './types';

interface Bucket { time: string; sent: number; opened: number; clicked: number; openedT: number; clickedT: number }
interface Report {
  metrics: Record<string, number>;
  timeline: Bucket[];
  topLinks: Array<{ url: string; clicks: number; uniqueClicks: number }>;
  bounces: Array<{ email: string; time: string; type: string; reason: string | null }>;
  unsubscribes: Array<{ email: string; time: string; reason: string | null }>;
}

/** The tiles: a metric, its label, and the key of its percentage (of sent; sentP: of the recipients). */
const TILES: Array<[string, string, string?]> = [
  ['sent', 'Sent', 'sentP'], ['delivered', 'Delivered', 'deliveredP'], ['opened', 'Opened', 'openedP'], ['clicked', 'Clicked', 'clickedP'],
  ['ctor', 'Clicks per open'], ['bounced', 'Bounced', 'bouncedP'], ['bouncedHard', 'Hard bounces', 'bouncedHardP'],
  ['unsubscribed', 'Unsubscribed', 'unsubscribedP'], ['complained', 'Complaints', 'complainedP'],
  ['openedT', 'Opens (all)'], ['clickedT', 'Clicks (all)'], ['viewsOnline', 'Viewed online'],
];

export function CampaignReportPage({ id }: { id: string }) {
  // While it sends, both are read again every 2 s (or twice the time the report took, if longer);
  // when it stops, once more, so the last figures are not those of a tick before.
  const [sending, setSending] = useState(false);
  const campaign = useApi<Campaign>(accountPath(`/campaigns/${encodeURIComponent(id)}`), {}, sending ? 2000 : 0);
  const report = useApi<Report>(accountPath(`/campaigns/${encodeURIComponent(id)}/report`), {}, sending ? 2000 : 0);
  useEffect(() => setSending(Boolean(campaign.data && isSending(campaign.data))), [campaign.data]);
  const c = campaign.data;
  return (
    <Page title={c ? `Report of ${c.name}` : 'Report'} actions={c && <a href={to(campaignPath(c.id))}>Back to the campaign</a>}>
      <Loading loading={campaign.loading || report.loading} error={campaign.error ?? report.error}>
        {c && report.data && <ReportBody campaign={c} report={report.data} live={sending} />}
      </Loading>
    </Page>
  );
}

function ReportBody({ campaign, report, live }: { campaign: Campaign; report: Report; live: boolean }) {
  const m = report.metrics;
  return (
    <>
      <p>
        <StateBadge campaign={campaign} /> · {count(campaign.recipients)} recipient(s)
        {live && <span class="muted"> · sending: the figures refresh every 2 seconds</span>}
      </p>
      <dl class="stats" aria-label="Figures">
        {TILES.map(([key, label, rate]) => (
          <div class="stat" key={key}>
            <dt>{label}</dt>
            <dd>
              {key === 'ctor' ? percent((m[key] ?? 0) / 100) : count(m[key])}
              {rate && <span class="rate"> {percent((m[rate] ?? 0) / 100)}</span>}
            </dd>
          </div>
        ))}
      </dl>
      <Section title="Opens and clicks over time">
        <Timeline buckets={report.timeline} />
      </Section>
      <Section title="Top links">
        <Table caption="The most clicked links" rows={report.topLinks} rowKey={(l) => l.url} empty="No click yet."
          columns={[
            { label: 'Link', cell: (l) => <span class="url">{l.url}</span> },
            { label: 'Clicks', numeric: true, cell: (l) => count(l.clicks) },
            { label: 'Recipients who clicked', numeric: true, cell: (l) => count(l.uniqueClicks) },
          ]} />
      </Section>
      <div class="grid">
        <Section title="Bounces">
          <Table caption="The latest bounces" rows={report.bounces} rowKey={(b) => `${b.email}:${b.time}`} empty="No bounce."
            columns={[
              { label: 'Email', cell: (b) => b.email },
              { label: 'Type', cell: (b) => b.type },
              { label: 'When', cell: (b) => dateTime(b.time) },
              { label: 'Reason', cell: (b) => b.reason ?? '—' },
            ]} />
        </Section>
        <Section title="Unsubscribes">
          <Table caption="The latest unsubscribes" rows={report.unsubscribes} rowKey={(u) => `${u.email}:${u.time}`} empty="No unsubscribe."
            columns={[
              { label: 'Email', cell: (u) => u.email },
              { label: 'When', cell: (u) => dateTime(u.time) },
              { label: 'Reason', cell: (u) => (u.reason === 'spam_fbl' ? 'complaint' : u.reason ?? '—') },
            ]} />
        </Section>
      </div>
    </>
  );
}

function Timeline({ buckets }: { buckets: Bucket[] }) {
  // Redrawn only when the figures change (a poll answers new arrays of the same numbers); uPlot's time axis is in seconds.
  const key = JSON.stringify(buckets);
  const times = useMemo(() => buckets.map((b) => parseISO(b.time).getTime() / 1000), [key]);
  const series = useMemo(() => [
    { label: 'Opened', values: buckets.map((b) => b.opened), color: '#0b57d0' },
    { label: 'Clicked', values: buckets.map((b) => b.clicked), color: '#146c2e' },
  ], [key]);
  if (buckets.length === 0) return <p class="muted">Nothing sent yet.</p>;
  return (
    <>
      {buckets.length > 1
        ? <LineChart title="First opens and clicks" times={times} series={series} />
        : <p class="muted">One period so far: the chart starts with the second.</p>}
      <Table caption="Opens and clicks over time" rows={buckets} rowKey={(b) => b.time}
        columns={[
          { label: 'From', cell: (b) => dateTime(b.time) },
          { label: 'Sent', numeric: true, cell: (b) => count(b.sent) },
          { label: 'Opened', numeric: true, cell: (b) => count(b.opened) },
          { label: 'Clicked', numeric: true, cell: (b) => count(b.clicked) },
          { label: 'Opens (all)', numeric: true, cell: (b) => count(b.openedT) },
          { label: 'Clicks (all)', numeric: true, cell: (b) => count(b.clickedT) },
        ]} />
    </>
  );
}
