// The suppression list: addresses that get no mail. Search (kept in the address), add, remove.
import { useEffect, useState } from 'preact/hooks';
import { accountPath, api } from '../../api';
import { useApi } from '../../hooks';
import { Loading, Page, Section } from '../../components/page';
import { OffsetPager, Table } from '../../components/table';
import { ActionButton, SubmitButton } from '../../components/buttons';
import { ErrorText, Form, Notice, SelectField, TextField, useSubmit } from '../../components/forms';
import { useUrlQuery } from '../../components/url-query';
import { dateTime } from '../../format';
import { can } from '../../session';
import type { Suppression } from './types';

const LIMIT = 50;
const REASONS = ['manual', 'unsubscribed', 'bounced', 'complained'].map((r) => ({ value: r, label: r }));
const NO_UPDATE = 'You lack the contacts:update permission';

export function Suppressions() {
  const [query, setQuery] = useUrlQuery();
  const offset = Number(query.offset) > 0 ? Math.floor(Number(query.offset)) : 0;
  const list = useApi<Suppression[]>(accountPath('/suppressions'), { q: query.q, offset, limit: LIMIT });
  const [q, setQ] = useState(query.q ?? '');
  useEffect(() => setQ(query.q ?? ''), [query.q]);
  const [done, setDone] = useState<string | null>(null);
  const mayUpdate = can('contacts:update');

  async function remove(email: string) {
    await api.delete(accountPath(`/suppressions/${encodeURIComponent(email)}`));
    setDone(`${email} was taken off the list: it gets mail again.`);
    list.reload();
  }

  return (
    <Page title="Suppressions">
      <AddSuppression disabled={!mayUpdate} onAdded={(email) => { setDone(`${email} is on the list: it gets no mail.`); list.reload(); }} />
      {done && <Notice>{done}</Notice>}
      <Section title="The list">
        <Form label="Search suppressions" onSubmit={() => setQuery({ q })}>
          <div class="filters">
            <TextField label="Address contains" type="search" value={q} onInput={setQ} />
            <button type="submit" class="primary">Search</button>
            {query.q && <button type="button" onClick={() => setQuery({})}>Clear</button>}
          </div>
        </Form>
        <Loading loading={list.loading} error={list.error}>
          {list.data && (
            <>
              <Table caption="Suppressed addresses, newest first" rows={list.data} rowKey={(s) => s.email}
                empty={query.q ? 'No suppressed address matches.' : 'No suppressed addresses.'}
                columns={[
                  { label: 'Address', cell: (s) => s.email },
                  { label: 'Reason', cell: (s) => <span class="badge">{s.reason}</span> },
                  { label: 'Source', cell: (s) => s.source ?? '—' },
                  { label: 'Added', cell: (s) => dateTime(s.created) },
                  {
                    label: 'Action', cell: (s) => (
                      <ActionButton kind="danger" onAction={() => remove(s.email)} disabled={!mayUpdate} why={NO_UPDATE}
                        confirm={`Take ${s.email} off the suppression list? It will get mail again.`}>Remove<span class="visually-hidden"> {s.email}</span></ActionButton>
                    ),
                  },
                ]} />
              <OffsetPager offset={offset} limit={LIMIT} total={list.envelope?.paging?.total ?? 0}
                onOffset={(next) => setQuery({ q: query.q, offset: next ? String(next) : undefined })} />
            </>
          )}
        </Loading>
      </Section>
    </Page>
  );
}

function AddSuppression({ disabled, onAdded }: { disabled: boolean; onAdded: (email: string) => void }) {
  const [email, setEmail] = useState('');
  const [reason, setReason] = useState('manual');
  const submit = useSubmit();
  return (
    <Section title="Add an address">
      <Form label="Add a suppression" onSubmit={() => void submit.run(async () => {
        const { data } = await api.post<Suppression>(accountPath('/suppressions'), { email, reason });
        setEmail('');
        onAdded(data.email);
      })}>
        <div class="filters">
          <TextField label="Email" type="email" value={email} onInput={setEmail} error={submit.fields.email} disabled={disabled} required />
          <SelectField label="Reason" value={reason} onChange={setReason} options={REASONS} error={submit.fields.reason} disabled={disabled} />
          <SubmitButton busy={submit.busy} disabled={disabled}>Add</SubmitButton>
        </div>
        {disabled && <p class="muted">{NO_UPDATE}: you can see the list but not change it.</p>}
        <ErrorText error={Object.keys(submit.fields).length ? null : submit.error} />
      </Form>
    </Section>
  );
}
