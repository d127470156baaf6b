// '/users/:id': a user: its permissions (changed with users:update), its API keys (a new one
// shown once; revoke), and its deletion.
import { useState } from 'preact/hooks';
import { useLocation, useRoute } from 'preact-iso';
import { accountPath, api } from '../../api';
import { ActionButton, SubmitButton } from '../../components/buttons';
import { ErrorText, Form, Notice, useSubmit } from '../../components/forms';
import { Details, Loading, Page, Section } from '../../components/page';
import { dateTime } from '../../format';
import { useApi } from '../../hooks';
import { to } from '../../routes';
import { can, session } from '../../session';
import { PermissionChecklist } from './permission-checklist';
import { UserKeys } from './user-keys';
import type { User } from './types';
import './settings.css';

/** Made anew (its key) when the permissions change, so `saved` lives in the page: its notice outlasts the form. */
function EditPermissions({ user, path, saved, onSaving, onSaved }: { user: User; path: string; saved: boolean; onSaving: () => void; onSaved: () => void }) {
  const [permissions, setPermissions] = useState(user.permissions);
  const { busy, error, fields, run } = useSubmit();
  const allowed = can('users:update');
  const submit = () => run(async () => {
    onSaving();
    await api.put(path, { permissions });
    onSaved();
  });
  return (
    <Form onSubmit={submit} label="Permissions of the user">
      <PermissionChecklist value={permissions} onChange={setPermissions} disabled={!allowed} error={fields.permissions} />
      <ErrorText error={Object.keys(fields).length ? null : error} />
      {saved && <Notice>Permissions saved.</Notice>}
      <SubmitButton busy={busy} disabled={!allowed}>Save permissions</SubmitButton>
      {!allowed && <p class="muted">Your user lacks the permission users:update.</p>}
    </Form>
  );
}

export function UserPage() {
  const { params } = useRoute();
  const { route } = useLocation();
  const path = accountPath(`/users/${encodeURIComponent(params.id)}`);
  const loaded = useApi<User>(path);
  const [saved, setSaved] = useState(false);
  const user = loaded.data;
  const self = user !== undefined && user.username === session()?.user;
  const actions = user && (
    <ActionButton kind="danger" disabled={!can('users:delete') || self}
      why={self ? 'You cannot delete your own user' : 'Your user lacks the permission users:delete'}
      confirm={`Delete the user ${user.email ?? user.username}? Its API keys stop working at once.`}
      onAction={async () => { await api.delete(path); route(to('/users')); }}>
      Delete user
    </ActionButton>
  );
  return (
    <Page title={user ? `User ${user.email ?? user.username}` : 'User'} actions={actions}>
      <p><a href={to('/users')}>← All users</a></p>
      <Loading loading={loaded.loading} error={loaded.error}>
        {user && (
          <>
            <Section title="User">
              <Details items={[['Email', user.email], ['Username', user.username], ['Created', dateTime(user.created)], ['Changed', dateTime(user.lastModified)]]} />
            </Section>
            <Section title="Permissions">
              <EditPermissions key={user.permissions.join()} user={user} path={path} saved={saved}
                onSaving={() => setSaved(false)} onSaved={() => { setSaved(true); loaded.reload(); }} />
            </Section>
            <UserKeys path={path} allowed={self || can('users:update')} />
          </>
        )}
      </Loading>
    </Page>
  );
}
