// A user's API keys: their hints (the keys are stored as hashes), a new key shown once, revoke.
// Managed by the user themselves or by a user with users:update, as the API allows.
import { useState } from 'preact/hooks';
import { api } from '../../api';
import { ActionButton } from '../../components/buttons';
import { Loading, SecretOnce, Section } from '../../components/page';
import { Table } from '../../components/table';
import { dateTime } from '../../format';
import { useApi } from '../../hooks';
import type { UserKey } from './types';

const WHY = 'Only the user themselves or a user with the permission users:update manages its keys';

export function UserKeys({ path, allowed }: { path: string; allowed: boolean }) {
  const keys = useApi<UserKey[]>(allowed ? `${path}/keys` : null);
  const [issued, setIssued] = useState<{ id: number; key: string } | null>(null);
  async function create() {
    const { data } = await api.post<{ id: number; key: string }>(`${path}/keys`);
    setIssued(data);
    keys.reload();
  }
  return (
    <Section title="API keys" actions={<ActionButton kind="primary" onAction={create} disabled={!allowed} why={WHY}>New API key</ActionButton>}>
      {issued && <SecretOnce label={`API key ${issued.id}`} value={issued.key} />}
      {!allowed ? <p class="muted">{WHY}.</p> : (
        <Loading loading={keys.loading} error={keys.error}>
          {keys.data && (
            <Table caption="API keys of the user" rows={keys.data} rowKey={(k) => k.id} empty="No API keys."
              columns={[
                { label: 'Key', cell: (k) => <code>{k.hint}</code> },
                { label: 'Created', cell: (k) => dateTime(k.created) },
                {
                  label: 'Actions',
                  cell: (k) => (
                    <ActionButton kind="danger" confirm={`Revoke the key ${k.hint}? Scripts using it are refused at once.`}
                      onAction={async () => { await api.delete(`${path}/keys/${k.id}`); if (issued?.id === k.id) setIssued(null); keys.reload(); }}>
                      {`Revoke ${k.hint}`}
                    </ActionButton>
                  ),
                },
              ]} />
          )}
        </Loading>
      )}
    </Section>
  );
}
