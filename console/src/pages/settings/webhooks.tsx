// '/webhooks': the account's endpoints, and a new one (its signing secret shown once).
import { useState } from 'preact/hooks';
import { accountPath, api } from '../../api';
import { SubmitButton } from '../../components/buttons';
import { ErrorText, Form, TextField, useSubmit } from '../../components/forms';
import { Loading, Page, SecretOnce, Section } from '../../components/page';
import { OffsetPager, Table } from '../../components/table';
import { useApi } from '../../hooks';
import { to } from '../../routes';
import { can } from '../../session';
import { EventTypes, eventsSummary, TRACK_TYPES } from './event-types';
import type { Endpoint } from './types';
import './settings.css';

const LIMIT = 20;

function CreateEndpoint({ onCreated }: { onCreated: (endpoint: Endpoint) => void }) {
  const [url, setUrl] = useState('');
  const [events, setEvents] = useState<string[]>([...TRACK_TYPES]);
  const { busy, error, fields, run } = useSubmit();
  const allowed = can('webhooks:create');
  const submit = () => run(async () => {
    const { data } = await api.post<Endpoint>(accountPath('/webhooks'), { url: url.trim(), events });
    setUrl('');
    onCreated(data);
  });
  return (
    <Form onSubmit={submit} label="New webhook endpoint">
      {!allowed && <p class="muted">You cannot create endpoints: your user lacks the permission webhooks:create.</p>}
      <TextField label="URL" type="url" value={url} onInput={setUrl} error={fields.url} disabled={!allowed}
        hint="Events are POSTed to it as JSON, signed with the endpoint's secret (Herald-Signature)." />
      <EventTypes value={events} onChange={setEvents} error={fields.events} disabled={!allowed} />
      <ErrorText error={Object.keys(fields).length ? null : error} />
      <SubmitButton busy={busy} disabled={!allowed || events.length === 0}>Create endpoint</SubmitButton>
    </Form>
  );
}

export function WebhooksPage() {
  const [offset, setOffset] = useState(0);
  const [created, setCreated] = useState<Endpoint | null>(null);
  const list = useApi<Endpoint[]>(accountPath('/webhooks'), { offset, limit: LIMIT });
  const paging = list.envelope?.paging;
  return (
    <Page title="Webhooks">
      <Section title="Endpoints">
        <Loading loading={list.loading} error={list.error}>
          {list.data && (
            <Table caption="Webhook endpoints" rows={list.data} rowKey={(e) => e.id} empty="No webhook endpoints yet."
              columns={[
                { label: 'Endpoint', cell: (e) => <a href={to(`/webhooks/${e.id}`)}>{e.url}</a> },
                { label: 'Events', cell: (e) => eventsSummary(e.events) },
                { label: 'State', cell: (e) => <span class="badge">{e.enabled ? 'Enabled' : 'Disabled'}</span> },
              ]} />
          )}
          {paging && <OffsetPager offset={offset} limit={LIMIT} total={paging.total} onOffset={setOffset} />}
        </Loading>
      </Section>
      <Section title="New endpoint">
        {created && (
          <>
            <p>Endpoint <a href={to(`/webhooks/${created.id}`)}>{created.url}</a> created.</p>
            <SecretOnce label="Signing secret" value={created.secret ?? ''} />
          </>
        )}
        <CreateEndpoint onCreated={(endpoint) => { setCreated(endpoint); list.reload(); }} />
      </Section>
    </Page>
  );
}
