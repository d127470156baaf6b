// Transactional keys: listed by hint, a new one shown once (only its hash is kept), revoked with a confirmation.
import { useState } from 'preact/hooks';
import { accountPath, api } from '../../api';
import { useApi } from '../../hooks';
import { Loading, SecretOnce, Section } from '../../components/page';
import { Table } from '../../components/table';
import { ActionButton } from '../../components/buttons';
import { Notice } from '../../components/forms';
import { dateTime } from '../../format';
import { can } from '../../session';
import type { TransactionalKey } from './types';

const PATH = '/integrations/transactional/keys';
const NO_UPDATE = 'You lack the account:update permission';

export function TransactionalKeys() {
  const keys = useApi<TransactionalKey[]>(accountPath(PATH));
  const [issued, setIssued] = useState<{ id: number; key: string } | null>(null);
  const [revoked, setRevoked] = useState<string | null>(null);
  const mayUpdate = can('account:update');
  return (
    <Section title="Transactional keys"
      actions={<ActionButton kind="primary" disabled={!mayUpdate} why={NO_UPDATE} onAction={async () => {
        const { data } = await api.post<{ id: number; key: string }>(accountPath(PATH));
        setRevoked(null);
        setIssued(data);
        keys.reload();
      }}>New key</ActionButton>}>
      <p class="muted">The credentials of <code>POST /v1/mail/send</code> (<code>Authorization: Bearer …</code>) and of SMTP submission.</p>
      {issued && <SecretOnce label={`Key ${issued.id}`} value={issued.key} />}
      {revoked && <Notice>{revoked}</Notice>}
      <Loading loading={keys.loading} error={keys.error}>
        {keys.data && (
          <Table caption="Transactional keys" rows={keys.data} rowKey={(k) => k.id} empty="No transactional keys: sending over HTTP and SMTP is refused."
            columns={[
              { label: 'Key', cell: (k) => <code>{k.hint}</code> },
              { label: 'Created', cell: (k) => dateTime(k.created) },
              {
                label: 'Action', cell: (k) => (
                  <ActionButton kind="danger" disabled={!mayUpdate} why={NO_UPDATE}
                    confirm={`Revoke the key ${k.hint}? Senders using it are refused from now on.`}
                    onAction={async () => {
                      await api.delete(accountPath(`${PATH}/${k.id}`));
                      if (issued?.id === k.id) setIssued(null);
                      setRevoked(`The key ${k.hint} is revoked.`);
                      keys.reload();
                    }}>Revoke<span class="visually-hidden"> key {k.hint}</span></ActionButton>
                ),
              },
            ]} />
        )}
      </Loading>
    </Section>
  );
}
