// '/automations': the account's automations with their run counts; activate or deactivate each.
import { useState } from 'preact/hooks';
import { accountPath } from '../../api';
import { SelectField } from '../../components/forms';
import { Loading, Page, Section } from '../../components/page';
import { OffsetPager, Table } from '../../components/table';
import { count } from '../../format';
import { useApi } from '../../hooks';
import { to } from '../../routes';
import { ToggleAutomation } from './toggle';
import type { Automation } from './types';

const LIMIT = 20;

export function AutomationsPage() {
  const [offset, setOffset] = useState(0);
  const [enabled, setEnabled] = useState('');
  const list = useApi<Automation[]>(accountPath('/automations'), { offset, limit: LIMIT, 'filter[enabled]': enabled });
  return (
    <Page title="Automations">
      <div class="filters">
        <SelectField label="State" value={enabled} onChange={(v) => { setEnabled(v); setOffset(0); }}
          options={[{ value: '', label: 'All' }, { value: 'true', label: 'Active' }, { value: 'false', label: 'Inactive' }]} />
      </div>
      <Section title="Automations">
        <Loading loading={list.loading} error={list.error}>
          {list.data && (
            <Table caption="Automations with their runs" rows={list.data} rowKey={(a) => a.id} empty="No automations."
              columns={[
                { label: 'Name', cell: (a) => <a href={to(`/automations/${a.id}`)}>{a.name}</a> },
                { label: 'Trigger key', cell: (a) => <code>{a.trigger.key}</code> },
                { label: 'State', cell: (a) => <span class="badge">{a.enabled ? 'Active' : 'Inactive'}</span> },
                { label: 'Triggered', cell: (a) => count(a.stats.triggered), numeric: true },
                { label: 'Running', cell: (a) => count(a.stats.active), numeric: true },
                { label: 'Completed', cell: (a) => count(a.stats.completed), numeric: true },
                { label: 'Exited', cell: (a) => count(a.stats.exited), numeric: true },
                { label: 'Failed', cell: (a) => count(a.stats.failed), numeric: true },
                { label: 'Actions', cell: (a) => <ToggleAutomation id={a.id} name={a.name} enabled={a.enabled} onDone={list.reload} /> },
              ]} />
          )}
          {list.envelope?.paging && <OffsetPager offset={offset} limit={LIMIT} total={list.envelope.paging.total} onOffset={setOffset} />}
        </Loading>
      </Section>
    </Page>
  );
}
