// Rename in place: a button that opens a one-field form in the row (PUT …/{id} {name}).
import { useState } from 'preact/hooks';
import { SubmitButton } from '../../components/buttons';
import { Form, TextField, useSubmit } from '../../components/forms';

export function Rename({ name, onRename, disabled, why }: { name: string; onRename: (name: string) => Promise<void>; disabled?: boolean; why?: string }) {
  const [open, setOpen] = useState(false);
  const [value, setValue] = useState(name);
  const submit = useSubmit();
  if (!open) {
    return (
      <button type="button" disabled={disabled} title={disabled ? why : undefined} aria-label={`Rename ${name}`}
        onClick={() => { setValue(name); setOpen(true); }}>
        Rename
      </button>
    );
  }
  return (
    <div class="rename">
      <Form label={`Rename ${name}`} onSubmit={() => void submit.run(async () => { await onRename(value.trim()); setOpen(false); })}>
        <TextField label={`New name for ${name}`} value={value} onInput={setValue} error={submit.fields.name ?? submit.error ?? undefined} autoFocus maxLength={100} />
        <SubmitButton busy={submit.busy}>Save name</SubmitButton>
        <button type="button" onClick={() => setOpen(false)}>Cancel</button>
      </Form>
    </div>
  );
}
