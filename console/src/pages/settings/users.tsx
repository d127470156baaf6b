// '/users': the account's users with their permissions, and a new user.
import { useState } from 'preact/hooks';
import { accountPath, api } from '../../api';
import { SubmitButton } from '../../components/buttons';
import { ErrorText, Form, Notice, TextField, useSubmit } from '../../components/forms';
import { Loading, Page, Section } from '../../components/page';
import { OffsetPager, Table } from '../../components/table';
import { dateTime } from '../../format';
import { useApi } from '../../hooks';
import { to } from '../../routes';
import { can } from '../../session';
import { ALL_PERMISSIONS, PermissionChecklist } from './permission-checklist';
import type { User } from './types';
import './settings.css';

const LIMIT = 20;

/** The permissions in a few words: "all", or the count with the first few. */
export function permissionsSummary(permissions: string[]): string {
  if (permissions.length >= ALL_PERMISSIONS.length) return 'All permissions';
  if (permissions.length === 0) return 'None';
  const shown = permissions.slice(0, 4).join(', ');
  return permissions.length > 4 ? `${shown} and ${permissions.length - 4} more` : shown;
}

function CreateUser({ onCreated }: { onCreated: (user: User) => void }) {
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [permissions, setPermissions] = useState<string[]>([]);
  const { busy, error, fields, run } = useSubmit();
  const allowed = can('users:create');
  const submit = () => run(async () => {
    const { data } = await api.post<User>(accountPath('/users'), { email: email.trim(), password, permissions });
    setEmail('');
    setPassword('');
    setPermissions([]);
    onCreated(data);
  });
  return (
    <Form onSubmit={submit} label="New user">
      {!allowed && <p class="muted">You cannot add users: your user lacks the permission users:create.</p>}
      <TextField label="Email" type="email" autoComplete="off" value={email} onInput={setEmail} error={fields.email} disabled={!allowed} />
      <TextField label="Password" type="password" autoComplete="new-password" value={password} onInput={setPassword} error={fields.password}
        disabled={!allowed} hint="At least 8 characters; the user signs in with the email and this password." />
      <PermissionChecklist value={permissions} onChange={setPermissions} error={fields.permissions} disabled={!allowed} />
      <ErrorText error={Object.keys(fields).length ? null : error} />
      <SubmitButton busy={busy} disabled={!allowed}>Add user</SubmitButton>
    </Form>
  );
}

export function UsersPage() {
  const [offset, setOffset] = useState(0);
  const [created, setCreated] = useState<User | null>(null);
  const list = useApi<User[]>(accountPath('/users'), { offset, limit: LIMIT });
  return (
    <Page title="Users and API keys">
      <Section title="Users">
        <Loading loading={list.loading} error={list.error}>
          {list.data && (
            <Table caption="Users of the account" rows={list.data} rowKey={(u) => u.id}
              columns={[
                { label: 'User', cell: (u) => <a href={to(`/users/${u.id}`)}>{u.email ?? u.username}</a> },
                { label: 'Username', cell: (u) => u.username },
                { label: 'Permissions', cell: (u) => permissionsSummary(u.permissions) },
                { label: 'Created', cell: (u) => dateTime(u.created) },
              ]} />
          )}
          {list.envelope?.paging && <OffsetPager offset={offset} limit={LIMIT} total={list.envelope.paging.total} onOffset={setOffset} />}
        </Loading>
      </Section>
      <Section title="New user">
        {created && <Notice>User <a href={to(`/users/${created.id}`)}>{created.email}</a> added.</Notice>}
        <CreateUser onCreated={(user) => { setCreated(user); list.reload(); }} />
      </Section>
    </Page>
  );
}
