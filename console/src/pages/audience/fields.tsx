// /fields: the contact fields, built-in (not changeable) and custom; create, rename, delete.
import { useState } from 'preact/hooks';
import { accountPath, api } from '../../api';
import { useApi } from '../../hooks';
import { can } from '../../session';
import { SubmitButton } from '../../components/buttons';
import { ErrorText, Form, SelectField, TextField, useSubmit } from '../../components/forms';
import { Loading, Page, Section } from '../../components/page';
import { OffsetPager, Table } from '../../components/table';
import { RowActions } from './row-actions';
import type { FieldRecord } from './types';
import './audience.css';

const LIMIT = 50;
const FORMATS = [{ value: 'TEXT', label: 'Text' }, { value: 'INT', label: 'Whole number' }, { value: 'DATE', label: 'Date' }];

export function Fields() {
  const [offset, setOffset] = useState(0);
  const fields = useApi<FieldRecord[]>(accountPath('/fields'), { limit: LIMIT, offset });
  const paging = fields.envelope?.paging;
  return (
    <Page title="Custom fields">
      <CreateField onCreated={fields.reload} />
      <Loading loading={fields.loading} error={fields.error}>
        {fields.data && (
          <>
            <Table caption="Contact fields" rows={fields.data} rowKey={(f) => f.id}
              columns={[
                { label: 'Id', numeric: true, cell: (f) => f.id },
                { label: 'Name', cell: (f) => f.name },
                { label: 'Tag', cell: (f) => <code>{f.tag}</code> },
                { label: 'Format', cell: (f) => f.format },
                { label: 'Kind', cell: (f) => (f.custom ? 'Custom' : <span class="muted">Built-in</span>) },
                {
                  label: 'Actions', cell: (f) => (!f.custom ? <span class="muted">Not changeable</span> : (
                    <RowActions resource="fields" id={f.id} name={f.name} onChanged={fields.reload}
                      confirm={`Delete the field ${f.name}? Its value is removed from every contact.`} />
                  )),
                },
              ]} />
            {paging && <OffsetPager offset={offset} limit={LIMIT} total={paging.total} onOffset={setOffset} />}
          </>
        )}
      </Loading>
    </Page>
  );
}

function CreateField({ onCreated }: { onCreated: () => void }) {
  const [name, setName] = useState('');
  const [tag, setTag] = useState('');
  const [format, setFormat] = useState('TEXT');
  const submit = useSubmit();
  const allowed = can('fields:create');
  return (
    <Section title="New custom field">
      <Form label="New custom field" onSubmit={() => void submit.run(async () => {
        await api.post(accountPath('/fields'), { name: name.trim(), format, ...(tag.trim() ? { tag: tag.trim() } : {}) });
        setName('');
        setTag('');
        onCreated();
      })}>
        <div class="form-grid">
          <TextField label="Field name" value={name} onInput={setName} error={submit.fields.name} maxLength={100} disabled={!allowed} />
          <TextField label="Tag" value={tag} onInput={setTag} error={submit.fields.tag} hint="Letters, digits and _; by default the name upper-cased" disabled={!allowed} />
          <SelectField label="Format" value={format} onChange={setFormat} options={FORMATS} error={submit.fields.format} disabled={!allowed} />
        </div>
        {!allowed && <p class="muted">Creating fields needs the permission fields:create.</p>}
        <ErrorText error={Object.keys(submit.fields).length ? null : submit.error} />
        <SubmitButton busy={submit.busy} disabled={!allowed}>Create field</SubmitButton>
      </Form>
    </Section>
  );
}
