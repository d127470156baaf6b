// /interests: the account's interests, each with its member count (the contacts listing filtered
// by the interest, one row asked for: the API counts); create, rename, export, delete.
import { useState } from 'preact/hooks';
import { accountPath, api } from '../../api';
import { useApi } from '../../hooks';
import { to } from '../../routes';
import { can } from '../../session';
import { count, dateTime } from '../../format';
import { SubmitButton } from '../../components/buttons';
import { ErrorText, Form, TextField, useSubmit } from '../../components/forms';
import { Loading, Page, Section } from '../../components/page';
import { OffsetPager, Table } from '../../components/table';
import { RowActions } from './row-actions';
import type { InterestRecord } from './types';
import './audience.css';

const LIMIT = 20;

function Members({ id }: { id: number }) {
  const allowed = can('contacts:list');
  const page = useApi<unknown[]>(allowed ? accountPath('/contacts') : null, { 'filter[interest]': id, limit: 1 });
  if (!allowed) return <span title="Counting needs the permission contacts:list">—</span>;
  return <>{page.error ? '—' : page.envelope ? count(page.envelope.paging?.total) : '…'}</>;
}

export function Interests() {
  const [offset, setOffset] = useState(0);
  const interests = useApi<InterestRecord[]>(accountPath('/interests'), { limit: LIMIT, offset });
  const paging = interests.envelope?.paging;
  return (
    <Page title="Interests">
      <CreateInterest onCreated={interests.reload} />
      <Loading loading={interests.loading} error={interests.error}>
        {interests.data && (
          <>
            <Table caption="Interests" rows={interests.data} rowKey={(i) => i.id} empty="No interests yet."
              columns={[
                { label: 'Name', cell: (i) => <a href={to(`/contacts?interest=${i.id}`)}>{i.name}</a> },
                { label: 'Description', cell: (i) => i.description || '—' },
                { label: 'Expires after', cell: (i) => (i.expirationDays ? `${count(i.expirationDays)} days` : 'Never') },
                { label: 'Members', numeric: true, cell: (i) => <Members id={i.id} /> },
                { label: 'Created', cell: (i) => dateTime(i.created) },
                {
                  label: 'Actions', cell: (i) => (
                    <RowActions resource="interests" id={i.id} name={i.name} exportable onChanged={interests.reload}
                      confirm={`Delete the interest ${i.name}? It is taken off every contact.`} />
                  ),
                },
              ]} />
            {paging && <OffsetPager offset={offset} limit={LIMIT} total={paging.total} onOffset={setOffset} />}
          </>
        )}
      </Loading>
    </Page>
  );
}

function CreateInterest({ onCreated }: { onCreated: () => void }) {
  const [name, setName] = useState('');
  const [description, setDescription] = useState('');
  const [days, setDays] = useState('0');
  const submit = useSubmit();
  const allowed = can('interests:create');
  return (
    <Section title="New interest">
      <Form label="New interest" onSubmit={() => void submit.run(async () => {
        await api.post(accountPath('/interests'), { name: name.trim(), description, expirationDays: Number(days || 0) });
        setName('');
        setDescription('');
        onCreated();
      })}>
        <div class="form-grid">
          <TextField label="Interest name" value={name} onInput={setName} error={submit.fields.name} maxLength={100} disabled={!allowed} />
          <TextField label="Description" value={description} onInput={setDescription} error={submit.fields.description} disabled={!allowed} />
          <TextField label="Expires after (days, 0: never)" type="number" min={0} max={36500} value={days} onInput={setDays}
            error={submit.fields.expirationDays} disabled={!allowed} />
        </div>
        {!allowed && <p class="muted">Creating interests needs the permission interests:create.</p>}
        <ErrorText error={Object.keys(submit.fields).length ? null : submit.error} />
        <SubmitButton busy={submit.busy} disabled={!allowed}>Create interest</SubmitButton>
      </Form>
    </Section>
  );
}
