import { useEffect, useState } from 'preact/hooks';
import { accountPath } from '../../api';
import { useApi } from '../../hooks';
import { Loading, Page, Section } from '../../components/page';
import { Form, TextField } from '../../components/forms';
import { useUrlQuery } from '../../components/url-query';
import type { DailyStats } from './types';
import { DailyCharts, DailyTable, StatTiles } from './daily';
import { LatestBatches, LatestCampaigns } from './latest';

/** Last 30 days by default (the API's default range); a chosen range is kept in the address (`from`, `to`). */
export function Overview() {
  const [query, setQuery] = useUrlQuery();
  const stats = useApi<DailyStats>(accountPath('/stats/daily'), { from: query.from, to: query.to });
  const [from, setFrom] = useState(query.from ?? '');
  const [to, setTo] = useState(query.to ?? '');
  // The form shows the range answered (the default one too).
  useEffect(() => {
    if (stats.data) {
      setFrom(stats.data.from);
      setTo(stats.data.to);
    }
  }, [stats.data?.from, stats.data?.to]);
  return (
    <Page title="Overview">
      <Form label="Date range" onSubmit={() => setQuery({ from, to })}>
        <div class="filters">
          <TextField label="From" type="date" value={from} onInput={setFrom} max={to || undefined} />
          <TextField label="To" type="date" value={to} onInput={setTo} min={from || undefined} />
          <button type="submit" class="primary">Show</button>
          {(query.from || query.to) && <button type="button" onClick={() => setQuery({})}>Last 30 days</button>}
        </div>
      </Form>
      <Loading loading={stats.loading} error={stats.error}>
        {stats.data && (
          <>
            <StatTiles stats={stats.data} />
            <DailyCharts stats={stats.data} />
            <Section title="Per day">
              <DailyTable stats={stats.data} />
            </Section>
          </>
        )}
      </Loading>
      <div class="grid">
        <LatestCampaigns />
        <LatestBatches />
      </div>
    </Page>
  );
}
