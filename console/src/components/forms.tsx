// Form controls: every one has a visible label tied to it, and its error right beneath it
// (announced by screen readers through aria-describedby / role=alert).
import type { ComponentChildren, JSX } from 'preact';
import { useId, useState } from 'preact/hooks';
import { ApiError, messageOf } from '../api';

type InputProps = Omit<JSX.InputHTMLAttributes<HTMLInputElement>, 'label' | 'onInput'> & {
  label: string;
  value: string;
  onInput: (value: string) => void;
  error?: string;
  hint?: string;
};

export function TextField({ label, value, onInput, error, hint, ...rest }: InputProps) {
  const id = useId();
  return (
    <div class="field">
      <label for={id}>{label}</label>
      <input id={id} value={value} onInput={(e) => onInput(e.currentTarget.value)} aria-invalid={error ? true : undefined}
        aria-describedby={error ? `${id}-error` : hint ? `${id}-hint` : undefined} {...rest} />
      {hint && !error && <p class="hint" id={`${id}-hint`}>{hint}</p>}
      {error && <p class="field-error" id={`${id}-error`} role="alert">{error}</p>}
    </div>
  );
}

type AreaProps = Omit<JSX.TextareaHTMLAttributes<HTMLTextAreaElement>, 'label' | 'onInput'> & {
  label: string; value: string; onInput: (value: string) => void; error?: string;
};

export function TextArea({ label, value, onInput, error, ...rest }: AreaProps) {
  const id = useId();
  return (
    <div class="field">
      <label for={id}>{label}</label>
      <textarea id={id} value={value} onInput={(e) => onInput(e.currentTarget.value)} aria-invalid={error ? true : undefined}
        aria-describedby={error ? `${id}-error` : undefined} {...rest} />
      {error && <p class="field-error" id={`${id}-error`} role="alert">{error}</p>}
    </div>
  );
}

export function SelectField({ label, value, onChange, options, error, disabled }: {
  label: string; value: string; onChange: (value: string) => void; options: Array<{ value: string; label: string }>;
  error?: string; disabled?: boolean;
}) {
  const id = useId();
  return (
    <div class="field">
      <label for={id}>{label}</label>
      <select id={id} value={value} disabled={disabled} onChange={(e) => onChange(e.currentTarget.value)}
        aria-describedby={error ? `${id}-error` : undefined}>
        {options.map((o) => <option key={o.value} value={o.value}>{o.label}</option>)}
      </select>
      {error && <p class="field-error" id={`${id}-error`} role="alert">{error}</p>}
    </div>
  );
}

export function Checkbox({ label, checked, onChange, disabled }: { label: string; checked: boolean; onChange: (checked: boolean) => void; disabled?: boolean }) {
  const id = useId();
  return (
    <div class="checkbox">
      <input type="checkbox" id={id} checked={checked} disabled={disabled} onChange={(e) => onChange(e.currentTarget.checked)} />
      <label for={id}>{label}</label>
    </div>
  );
}

/** An error that concerns a whole form or action (role=alert: read out when it appears). */
export function ErrorText({ error }: { error?: string | null }) {
  return error ? <p class="error" role="alert">{error}</p> : null;
}

export function Notice({ children }: { children: ComponentChildren }) {
  return <p class="notice" role="status">{children}</p>;
}

/**
 * A form's submit state: `run` calls the action, keeps `busy` true meanwhile (the button shows
 * it and cannot be pressed twice) and always ends it, whatever the action did; the API's message
 * lands on the field it names (`fields`) or on the whole form (`error`).
 */
export function useSubmit() {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [fields, setFields] = useState<Record<string, string>>({});
  async function run(action: () => Promise<void>): Promise<boolean> {
    setBusy(true);
    setError(null);
    setFields({});
    try {
      await action();
      return true;
    } catch (caught) {
      if (caught instanceof ApiError && Object.keys(caught.fields).length > 0) setFields(caught.fields);
      setError(messageOf(caught));
      return false;
    } finally {
      setBusy(false);
    }
  }
  return { busy, error, fields, run, setError };
}

/** A form whose submit runs `onSubmit` through useSubmit's state. */
export function Form({ onSubmit, children, label }: { onSubmit: () => void; children: ComponentChildren; label?: string }) {
  return (
    <form aria-label={label} onSubmit={(e) => { e.preventDefault(); onSubmit(); }} noValidate>
      {children}
    </form>
  );
}
