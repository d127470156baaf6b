// The original's checks before a launch, one by one (GET …/validate): each passed or failed, with its message.
import { useState } from 'preact/hooks';
import { accountPath, api } from '../../api';
import { ActionButton } from '../../components/buttons';
import type { Validation } from './types';

const CHECKS: Array<[string, string]> = [
  ['sender', 'Sender'], ['subject', 'Subject'], ['body', 'Body'], ['unsubscribe', 'Unsubscribe link'],
  ['recipients', 'Recipients'], ['senderDomain', 'Sender domain'], ['launchDate', 'Launch date'],
];

export function ValidationPanel({ id }: { id: number }) {
  const [validation, setValidation] = useState<Validation | null>(null);
  const warnings = validation ? Object.values(validation.tests).flatMap((t) => t.warnings) : [];
  return (
    <div class="validation">
      <ActionButton onAction={async () => setValidation((await api.get<Validation>(accountPath(`/campaigns/${id}/validate`))).data)}>
        Validate
      </ActionButton>
      {validation && (
        <div role="status">
          <p class={validation.valid ? 'ok' : 'error'}>
            {validation.valid ? 'Every check passed: the campaign can be launched.' : 'Some checks failed: the campaign cannot be launched yet.'}
          </p>
          <ul class="checks" aria-label="Checks">
            {CHECKS.map(([key, label]) => {
              const check = validation.checks[key];
              if (!check) return null;
              return (
                <li key={key} class={check.valid ? 'pass' : 'fail'}>
                  <span class="check-mark" aria-hidden="true">{check.valid ? '✓' : '✗'}</span>
                  <strong>{label}</strong> <span class="check-result">{check.valid ? 'passed' : 'failed'}</span>: {check.message}
                </li>
              );
            })}
          </ul>
          {warnings.map((w) => <p key={w.code} class="notice">{w.message}</p>)}
        </div>
      )}
    </div>
  );
}
