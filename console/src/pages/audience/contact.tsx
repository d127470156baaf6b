// /contacts/{ref}: a contact's state, lists, interests, custom fields and events; edit (PUT
// /contacts/{ref}), unsubscribe (POST …/unsubscribe) and delete (DELETE), each behind its permission.
import { useState } from 'preact/hooks';
import { useLocation, useRoute } from 'preact-iso';
import { accountPath, api } from '../../api';
import { useApi } from '../../hooks';
import { to } from '../../routes';
import { can } from '../../session';
import { dateTime, percent } from '../../format';
import { ActionButton } from '../../components/buttons';
import { Notice } from '../../components/forms';
import { Details, Loading, Page, Section } from '../../components/page';
import { Table } from '../../components/table';
import { ContactEvents } from './contact-events';
import { ContactForm } from './contact-form';
import { StateBadge } from './state';
import type { Contact } from './types';
import './audience.css';

export function ContactPage() {
  const { params } = useRoute();
  const { route } = useLocation();
  const loaded = useApi<Contact>(accountPath(`/contacts/${encodeURIComponent(params.contact)}`));
  const [editing, setEditing] = useState(false);
  const [saved, setSaved] = useState(false);
  const contact = loaded.data;
  const path = contact ? accountPath(`/contacts/${contact.id}`) : '';
  const name = contact ? [contact.firstName, contact.lastName].filter(Boolean).join(' ') : '';
  const cannotUpdate = !can('contacts:update');

  return (
    <Page title={contact ? contact.email : 'Contact'} actions={contact && (
      <>
        <button type="button" onClick={() => { setEditing(!editing); setSaved(false); }} disabled={cannotUpdate}
          title={cannotUpdate ? 'Editing needs the permission contacts:update' : undefined} aria-expanded={editing}>
          {editing ? 'Stop editing' : 'Edit'}
        </button>
        <ActionButton disabled={cannotUpdate || contact.state !== 'ACTIVE'}
          why={cannotUpdate ? 'Unsubscribing needs the permission contacts:update' : 'Only an active contact can be unsubscribed'}
          confirm={`Unsubscribe ${contact.email}? No API call brings a contact back.`}
          onAction={async () => { await api.post(`${path}/unsubscribe`); loaded.reload(); }}>
          Unsubscribe
        </ActionButton>
        <ActionButton kind="danger" disabled={!can('contacts:delete')} why="Deleting needs the permission contacts:delete"
          confirm={`Delete ${contact.email} for good?`}
          onAction={async () => { await api.delete(path); route(to('/contacts')); }}>
          Delete
        </ActionButton>
      </>
    )}>
      <p><a href={to('/contacts')}>← All contacts</a></p>
      <Loading loading={loaded.loading} error={loaded.error}>
        {contact && (
          <>
            {saved && <Notice>Saved.</Notice>}
            {editing ? (
              <Section title="Edit">
                <ContactForm contact={contact} submitLabel="Save contact" onSave={async (body) => {
                  await api.put(path, body);
                  setEditing(false);
                  setSaved(true);
                  loaded.reload();
                }} />
              </Section>
            ) : (
              <>
                <Section title="Contact">
                  <Details items={[
                    ['Name', name || '—'],
                    ['State', <StateBadge state={contact.state} />],
                    ['Quality', percent(contact.quality)],
                    ['Gender', contact.gender || '—'],
                    ['Language', contact.language || '—'],
                    ['Preferred format', contact.preferredFormat],
                    ['Source', contact.source],
                    ['Created', dateTime(contact.created)],
                    ['Last changed', dateTime(contact.lastModified)],
                    ['Last mailed', dateTime(contact.lastMailed)],
                    ['Last action', dateTime(contact.lastAction)],
                    ['Inactive since', dateTime(contact.inactivated)],
                  ]} />
                </Section>
                <div class="grid">
                  <Section title="Lists">
                    {contact.lists.length === 0 ? <p class="muted">On no list.</p> : (
                      <ul class="chips">{contact.lists.map((l) => <li key={l.id}><a href={to(`/contacts?list=${l.id}`)}>{l.name}</a></li>)}</ul>
                    )}
                  </Section>
                  <Section title="Interests">
                    {contact.interests.length === 0 ? <p class="muted">No interests.</p> : (
                      <ul class="chips">{contact.interests.map((i) => <li key={i.id}><a href={to(`/contacts?interest=${i.id}`)}>{i.name}</a></li>)}</ul>
                    )}
                  </Section>
                </div>
                <Section title="Custom fields">
                  <Table caption="Custom fields" rows={contact.customFields} rowKey={(f) => f.id} empty="The account has no custom fields."
                    columns={[
                      { label: 'Field', cell: (f) => f.name },
                      { label: 'Format', cell: (f) => f.format },
                      { label: 'Value', cell: (f) => f.value === '' ? <span class="muted">empty</span> : f.value },
                    ]} />
                </Section>
              </>
            )}
            <ContactEvents email={contact.email} />
          </>
        )}
      </Loading>
    </Page>
  );
}
