import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';
import { messageOf } from '../api';

export function SubmitButton({ busy, children, disabled }: { busy: boolean; children: ComponentChildren; disabled?: boolean }) {
  return (
    <button type="submit" class="primary" disabled={busy || disabled} aria-busy={busy}>
      {busy ? 'Working…' : children}
    </button>
  );
}

/**
 * A button that runs an API action: busy while it runs (never left spinning: the state ends in
 * `finally`), its error shown beside it. `confirm` asks first. `disabled` with `why`: the user
 * lacks the permission, and the title says so.
 */
export function ActionButton({ onAction, children, confirm: question, disabled, why, kind = 'secondary' }: {
  onAction: () => Promise<unknown>;
  children: ComponentChildren;
  confirm?: string;
  disabled?: boolean;
  why?: string;
  kind?: 'primary' | 'secondary' | 'danger';
}) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  async function click() {
    if (question && !window.confirm(question)) return;
    setBusy(true);
    setError(null);
    try {
      await onAction();
    } catch (caught) {
      setError(messageOf(caught));
    } finally {
      setBusy(false);
    }
  }
  return (
    <span class="action">
      <button type="button" class={kind} onClick={click} disabled={busy || disabled} aria-busy={busy} title={disabled ? why : undefined}>
        {busy ? 'Working…' : children}
      </button>
      {error && <span class="error" role="alert">{error}</span>}
    </span>
  );
}
