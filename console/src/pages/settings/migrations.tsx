// '/migrations': moving in. A form that starts a migration (POST /migrations: an account copied
// from a server speaking the original's API), then its page; below, the migrations run before.
import { useState } from 'preact/hooks';
import { useLocation } from 'preact-iso';
import { accountPath, request } from '../../api';
import { SubmitButton } from '../../components/buttons';
import { Checkbox, ErrorText, Form, TextField, useSubmit } from '../../components/forms';
import { Loading, Page, Section } from '../../components/page';
import { OffsetPager, Table } from '../../components/table';
import type { Task } from '../../components/task';
import { dateTime } from '../../format';
import { useApi } from '../../hooks';
import { to } from '../../routes';
import { can } from '../../session';
import { MIGRATION_TASK_NAMES, type MigrationParameters } from './migration-types';
import './settings.css';

const LIMIT = 10;
/** What POST /migrations asks of the user (api/account/migrations.ts MIGRATION_PERMISSIONS), and tasks:list to watch it. */
const NEEDED = ['fields:create', 'interests:create', 'lists:create', 'contacts:create', 'templates:create', 'campaigns:create', 'webhooks:create', 'tasks:list'];

function StartMigration() {
  const { route } = useLocation();
  const [from, setFrom] = useState('');
  const [account, setAccount] = useState('');
  const [key, setKey] = useState('');
  const [rate, setRate] = useState('10');
  const [merge, setMerge] = useState(false);
  const { busy, error, fields, run } = useSubmit();
  const missing = NEEDED.filter((permission) => !can(permission));
  const submit = () => run(async () => {
    const answer = await request<never>(accountPath('/migrations'), {
      method: 'POST', body: { from: from.trim(), account: account.trim(), key: key.trim(), rate: Number(rate), merge },
    });
    route(to(`/migrations/${(answer.task as unknown as Task).id}`));
  });
  return (
    <Form onSubmit={submit} label="New migration">
      {missing.length > 0 && <p class="muted">You cannot start a migration: your user lacks the permission{missing.length > 1 ? 's' : ''} {missing.join(', ')}.</p>}
      <TextField label="Source URL" type="url" value={from} onInput={setFrom} error={fields.from} disabled={missing.length > 0} required
        placeholder="https://api.example.com" hint="The server the account is on: the original service, or another Herald (with or without /v2)." />
      <TextField label="Account at the source" value={account} onInput={setAccount} error={fields.account} disabled={missing.length > 0} required />
      <TextField label="API key at the source" type="password" autocomplete="off" value={key} onInput={setKey} error={fields.key} disabled={missing.length > 0} required
        hint="A key that may list fields, interests, lists, contacts, tasks, templates, campaigns and webhooks. It is kept apart from the task and deleted when the migration ends." />
      <TextField label="Requests per second to the source, at most" type="number" min="0.1" max="1000" step="any" value={rate} onInput={setRate}
        error={fields.rate} disabled={missing.length > 0} />
      <Checkbox label="Write into this account even though it holds data that did not come from this source" checked={merge} onChange={setMerge} disabled={missing.length > 0} />
      <ErrorText error={Object.keys(fields).length ? null : error} />
      <SubmitButton busy={busy} disabled={missing.length > 0 || !from.trim() || !account.trim() || !key.trim()}>Start migration</SubmitButton>
    </Form>
  );
}

function History() {
  const [offset, setOffset] = useState(0);
  const list = useApi<Task[]>(can('tasks:list') ? accountPath('/tasks') : null, { q: MIGRATION_TASK_NAMES, sortby: 'created', sortdir: 'desc', offset, limit: LIMIT });
  const paging = list.envelope?.paging;
  return (
    <Loading loading={list.loading} error={list.error}>
      {list.data && (
        <Table caption="Migrations run before" rows={list.data.filter((task) => task.type === 'ACCOUNT_MIGRATION')} rowKey={(task) => task.id} empty="No migration yet."
          columns={[
            { label: 'Migration', cell: (task) => <a href={to(`/migrations/${task.id}`)}>{task.name}</a> },
            { label: 'Source', cell: (task) => (task.parameters as unknown as MigrationParameters).from },
            { label: 'Started', cell: (task) => dateTime(task.created) },
            { label: 'State', cell: (task) => <span class="badge">{task.state}</span> },
          ]} />
      )}
      {paging && <OffsetPager offset={offset} limit={LIMIT} total={paging.total} onOffset={setOffset} />}
    </Loading>
  );
}

export function MigrationsPage() {
  return (
    <Page title="Migrations">
      <Section title="Move an account in">
        <p>
          Copies custom fields, interests, lists, contacts (with their lists, interests and state: nobody who left is mailed again),
          the suppression list, templates, campaigns (as drafts) and webhooks (disabled: their secrets cannot be read back)
          from a server that speaks the original's API, through that API only. A migration stopped midway goes on where it stopped;
          run again later, it brings over what changed.
        </p>
        <StartMigration />
      </Section>
      <Section title="Migrations">
        <History />
      </Section>
    </Page>
  );
}
