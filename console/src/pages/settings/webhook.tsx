// '/webhooks/:id': an endpoint: change it, enable or disable it, rotate its secret (shown once),
// delete it; its delivery log and its discarded events, with a replay of the chosen ones.
import { useState } from 'preact/hooks';
import { useLocation, useRoute } from 'preact-iso';
import { accountPath, api } from '../../api';
import { ActionButton, SubmitButton } from '../../components/buttons';
import { ErrorText, Form, Notice, TextField, useSubmit } from '../../components/forms';
import { Details, Loading, Page, SecretOnce, Section } from '../../components/page';
import { useApi } from '../../hooks';
import { to } from '../../routes';
import { can } from '../../session';
import { DeliveryLog } from './delivery-log';
import { DiscardedEvents } from './discarded-events';
import { EventTypes, eventsSummary } from './event-types';
import type { Endpoint } from './types';
import './settings.css';

const NO_UPDATE = 'Your user lacks the permission webhooks:update';

/**
 * The endpoint's form. It is made anew (its key) when the endpoint changes, so `saved` lives in the
 * page: the "Saved." of a change must outlast the form that made it.
 */
function EditEndpoint({ endpoint, saved, onSaving, onSaved }: { endpoint: Endpoint; saved: boolean; onSaving: () => void; onSaved: () => void }) {
  const [url, setUrl] = useState(endpoint.url);
  const [events, setEvents] = useState(endpoint.events);
  const { busy, error, fields, run } = useSubmit();
  const allowed = can('webhooks:update');
  const submit = () => run(async () => {
    onSaving();
    await api.put(accountPath(`/webhooks/${endpoint.id}`), { url: url.trim(), events });
    onSaved();
  });
  return (
    <Form onSubmit={submit} label="Change the endpoint">
      <TextField label="URL" type="url" value={url} onInput={setUrl} error={fields.url} disabled={!allowed} />
      <EventTypes value={events} onChange={setEvents} error={fields.events} disabled={!allowed} />
      <ErrorText error={Object.keys(fields).length ? null : error} />
      {saved && <Notice>Saved.</Notice>}
      <SubmitButton busy={busy} disabled={!allowed || events.length === 0}>Save changes</SubmitButton>
      {!allowed && <p class="muted">{NO_UPDATE}.</p>}
    </Form>
  );
}

export function WebhookPage() {
  const { params } = useRoute();
  const { route } = useLocation();
  const path = accountPath(`/webhooks/${encodeURIComponent(params.id)}`);
  const loaded = useApi<Endpoint>(path);
  const [secret, setSecret] = useState<string | null>(null);
  const [saved, setSaved] = useState(false);
  const [version, setVersion] = useState(0);
  const endpoint = loaded.data;
  const mayUpdate = can('webhooks:update');
  const actions = endpoint && (
    <>
      <ActionButton disabled={!mayUpdate} why={NO_UPDATE}
        onAction={async () => { await api.put(path, { enabled: !endpoint.enabled }); loaded.reload(); }}>
        {endpoint.enabled ? 'Disable' : 'Enable'}
      </ActionButton>
      <ActionButton disabled={!mayUpdate} why={NO_UPDATE} confirm="Rotate the signing secret? The current one stops working within seconds."
        onAction={async () => { const { data } = await api.post<Endpoint>(`${path}/rotate-secret`); setSecret(data.secret ?? null); }}>
        Rotate secret
      </ActionButton>
      <ActionButton kind="danger" disabled={!can('webhooks:delete')} why="Your user lacks the permission webhooks:delete"
        confirm={`Delete the endpoint ${endpoint.url} and its delivery log?`}
        onAction={async () => { await api.delete(path); route(to('/webhooks')); }}>
        Delete
      </ActionButton>
    </>
  );
  return (
    <Page title={endpoint ? `Webhook ${endpoint.id}` : 'Webhook'} actions={actions}>
      <p><a href={to('/webhooks')}>← All webhooks</a></p>
      <Loading loading={loaded.loading} error={loaded.error}>
        {endpoint && (
          <>
            <Section title="Endpoint">
              {secret && <SecretOnce label="New signing secret" value={secret} />}
              <Details items={[
                ['URL', endpoint.url], ['State', endpoint.enabled ? 'Enabled' : 'Disabled'], ['Events', eventsSummary(endpoint.events)],
              ]} />
            </Section>
            <Section title="Change">
              <EditEndpoint key={`${endpoint.url}|${endpoint.events.join()}`} endpoint={endpoint} saved={saved}
                onSaving={() => setSaved(false)} onSaved={() => { setSaved(true); loaded.reload(); }} />
            </Section>
            <DiscardedEvents path={path} enabled={endpoint.enabled} onReplayed={() => setVersion((v) => v + 1)} />
            <DeliveryLog key={version} path={path} />
          </>
        )}
      </Loading>
    </Page>
  );
}
