// The audience section: contacts (search, a contact's page, create, import, export), lists,
// interests and custom fields. The specific /contacts/… paths come before /contacts/:contact (not :ref, which Preact takes for a ref prop).
import type { ConsoleRoute } from '../routes';
import { Contacts } from './audience/contacts';
import { ContactPage } from './audience/contact';
import { NewContact } from './audience/contact-new';
import { ImportContacts } from './audience/import';
import { Lists } from './audience/lists';
import { Interests } from './audience/interests';
import { Fields } from './audience/fields';

export const audienceRoutes: ConsoleRoute[] = [
  { path: '/contacts', component: Contacts },
  { path: '/contacts/new', component: NewContact },
  { path: '/contacts/import', component: ImportContacts },
  { path: '/contacts/:contact', component: ContactPage },
  { path: '/lists', component: Lists },
  { path: '/interests', component: Interests },
  { path: '/fields', component: Fields },
];
