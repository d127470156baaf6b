// /lists: the account's lists with their member counts (GET /lists gives activeContacts and
// totalContacts); create, rename, export, delete.
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
import type { ListRecord } from './types';
import './audience.css';

const LIMIT = 20;

export function Lists() {
  const [offset, setOffset] = useState(0);
  const lists = useApi<ListRecord[]>(accountPath('/lists'), { limit: LIMIT, offset });
  const paging = lists.envelope?.paging;
  return (
    <Page title="Lists">
      <CreateList onCreated={lists.reload} />
      <Loading loading={lists.loading} error={lists.error}>
        {lists.data && (
          <>
            <Table caption="Lists" rows={lists.data} rowKey={(l) => l.id} empty="No lists yet."
              columns={[
                { label: 'Name', cell: (l) => <a href={to(`/contacts?list=${l.id}`)}>{l.name}</a> },
                { label: 'Description', cell: (l) => l.description || '—' },
                { label: 'Active', numeric: true, cell: (l) => count(l.activeContacts) },
                { label: 'Members', numeric: true, cell: (l) => count(l.totalContacts) },
                { label: 'Created', cell: (l) => dateTime(l.created) },
                {
                  label: 'Actions', cell: (l) => (
                    <RowActions resource="lists" id={l.id} name={l.name} exportable onChanged={lists.reload}
                      confirm={`Delete the list ${l.name}? Its ${l.totalContacts} contacts stay, off this list.`} />
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

function CreateList({ onCreated }: { onCreated: () => void }) {
  const [name, setName] = useState('');
  const [description, setDescription] = useState('');
  const submit = useSubmit();
  const allowed = can('lists:create');
  return (
    <Section title="New list">
      <Form label="New list" onSubmit={() => void submit.run(async () => {
        await api.post(accountPath('/lists'), { name: name.trim(), ...(description ? { description } : {}) });
        setName('');
        setDescription('');
        onCreated();
      })}>
        <div class="form-grid">
          <TextField label="List name" value={name} onInput={setName} error={submit.fields.name} maxLength={100} required disabled={!allowed} />
          <TextField label="Description" value={description} onInput={setDescription} error={submit.fields.description} maxLength={1000} disabled={!allowed} />
        </div>
        {!allowed && <p class="muted">Creating lists needs the permission lists:create.</p>}
        <ErrorText error={Object.keys(submit.fields).length ? null : submit.error} />
        <SubmitButton busy={submit.busy} disabled={!allowed}>Create list</SubmitButton>
      </Form>
    </Section>
  );
}
