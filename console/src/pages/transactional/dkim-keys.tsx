// DKIM keys of the sender domains: add one (Herald makes the key pair), the DNS TXT record to
// publish as copyable text, delete.
import { useState } from 'preact/hooks';
import { accountPath, api } from '../../api';
import { useApi } from '../../hooks';
import { Loading, Section } from '../../components/page';
import { ActionButton, SubmitButton } from '../../components/buttons';
import { ErrorText, Form, TextArea, TextField, useSubmit } from '../../components/forms';
import { dateTime } from '../../format';
import { can } from '../../session';
import type { DkimKey } from './types';

const NO_UPDATE = 'You lack the account:update permission';

export function DkimKeys() {
  const keys = useApi<DkimKey[]>(accountPath('/dkim-keys'));
  const mayUpdate = can('account:update');
  return (
    <Section title="DKIM keys">
      <p class="muted">Mail from a domain with a key is signed once its record is published in the domain's DNS.</p>
      <AddDkimKey disabled={!mayUpdate} onAdded={keys.reload} />
      <Loading loading={keys.loading} error={keys.error}>
        {keys.data && (keys.data.length === 0 ? <p class="muted">No DKIM keys: mail goes out unsigned.</p> : keys.data.map((key) => (
          <article class="dkim-key" key={key.id} aria-labelledby={`dkim-${key.id}`}>
            <h3 id={`dkim-${key.id}`}>{key.domain} <span class="muted">· selector {key.selector} · added {dateTime(key.created)}</span></h3>
            <TextField label={`DNS record name (${key.dnsRecord.type}) for ${key.domain}`} value={key.dnsRecord.name} onInput={() => undefined} readOnly
              onFocus={(e) => e.currentTarget.select()} />
            <TextArea label={`DNS ${key.dnsRecord.type} record value for ${key.domain}`} value={key.dnsRecord.value} onInput={() => undefined} readOnly rows={4}
              class="dns-record" onFocus={(e) => e.currentTarget.select()} />
            <ActionButton kind="danger" disabled={!mayUpdate} why={NO_UPDATE}
              confirm={`Delete the DKIM key of ${key.domain}? Its mail goes out unsigned from now on.`}
              onAction={async () => { await api.delete(accountPath(`/dkim-keys/${key.id}`)); keys.reload(); }}>
              Delete<span class="visually-hidden"> the DKIM key of {key.domain}</span>
            </ActionButton>
          </article>
        )))}
      </Loading>
    </Section>
  );
}

function AddDkimKey({ disabled, onAdded }: { disabled: boolean; onAdded: () => void }) {
  const [domain, setDomain] = useState('');
  const [selector, setSelector] = useState('herald');
  const submit = useSubmit();
  return (
    <Form label="Add a DKIM key" onSubmit={() => void submit.run(async () => {
      await api.post(accountPath('/dkim-keys'), { domain, selector });
      setDomain('');
      onAdded();
    })}>
      <div class="filters">
        <TextField label="Domain" value={domain} onInput={setDomain} placeholder="example.com" error={submit.fields.domain} disabled={disabled} required />
        <TextField label="Selector" value={selector} onInput={setSelector} error={submit.fields.selector} disabled={disabled} required />
        <SubmitButton busy={submit.busy} disabled={disabled}>Add a key</SubmitButton>
      </div>
      {disabled && <p class="muted">{NO_UPDATE}: you can see the keys but not change them.</p>}
      <ErrorText error={Object.keys(submit.fields).length ? null : submit.error} />
    </Form>
  );
}
