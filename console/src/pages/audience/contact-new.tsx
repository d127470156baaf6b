// /contacts/new: POST /contacts, then the new contact's page.
import { useLocation } from 'preact-iso';
import { accountPath, api } from '../../api';
import { to } from '../../routes';
import { can } from '../../session';
import { Page, Section } from '../../components/page';
import { ContactForm } from './contact-form';
import type { Contact } from './types';
import './audience.css';

export function NewContact() {
  const { route } = useLocation();
  return (
    <Page title="New contact">
      <p><a href={to('/contacts')}>← All contacts</a></p>
      {!can('contacts:create') && <p class="error">Creating contacts needs the permission contacts:create.</p>}
      <Section title="Contact">
        <ContactForm submitLabel="Create contact" onSave={async (body) => {
          const { data } = await api.post<Contact>(accountPath('/contacts'), body);
          route(to(`/contacts/${data.id}`));
        }} />
      </Section>
    </Page>
  );
}
