// A contact's editable parts, for create (POST /contacts) and edit (PUT /contacts/{ref}): names,
// gender, language, format, custom fields, lists and interests. The API's field errors land on
// their fields.
import { useState } from 'preact/hooks';
import { SubmitButton } from '../../components/buttons';
import { Checkbox, ErrorText, Form, SelectField, TextField, useSubmit } from '../../components/forms';
import { Loading } from '../../components/page';
import { useAllFields, useAllInterests, useAllLists } from './choices';
import type { Contact } from './types';

export interface ContactBody {
  email?: string; firstName: string; lastName: string; gender: string; language: string; preferredFormat: string;
  customFields: Array<{ id: number; value: string }>; lists: number[]; interests: number[];
}

const GENDERS = [{ value: '', label: 'Not given' }, { value: 'F', label: 'F' }, { value: 'M', label: 'M' }];
const LANGUAGES = ['', 'de', 'en', 'es', 'fr', 'it', 'pt'].map((l) => ({ value: l, label: l || 'Not given' }));
const FORMATS = [{ value: 'HTML', label: 'HTML' }, { value: 'TEXT', label: 'Text' }];
const INPUT_TYPES: Record<string, string> = { INT: 'number', DATE: 'text' };

export function ContactForm({ contact, onSave, submitLabel }: {
  contact?: Contact; onSave: (body: ContactBody) => Promise<void>; submitLabel: string;
}) {
  const [email, setEmail] = useState('');
  const [firstName, setFirstName] = useState(contact?.firstName ?? '');
  const [lastName, setLastName] = useState(contact?.lastName ?? '');
  const [gender, setGender] = useState(contact?.gender ?? '');
  const [language, setLanguage] = useState(contact?.language ?? '');
  const [preferredFormat, setFormat] = useState(contact?.preferredFormat === 'TEXT' ? 'TEXT' : 'HTML');
  const initialValues = Object.fromEntries((contact?.customFields ?? []).map((f) => [f.id, f.value]));
  const [values, setValues] = useState<Record<number, string>>(initialValues);
  const [lists, setLists] = useState(new Set(contact?.lists.map((l) => l.id) ?? []));
  const [interests, setInterests] = useState(new Set(contact?.interests.map((i) => i.id) ?? []));
  const allLists = useAllLists();
  const allInterests = useAllInterests();
  const fields = useAllFields();
  const submit = useSubmit();
  const toggle = (set: Set<number>, id: number, on: boolean) => { const next = new Set(set); if (on) next.add(id); else next.delete(id); return next; };

  function save() {
    // Only the custom fields whose value changed: an untouched empty DATE stays unset.
    const customFields = Object.entries(values).filter(([id, value]) => value !== (initialValues[Number(id)] ?? ''))
      .map(([id, value]) => ({ id: Number(id), value }));
    void submit.run(() => onSave({
      ...(contact ? {} : { email }), firstName, lastName, gender, language, preferredFormat, customFields, lists: [...lists], interests: [...interests],
    }));
  }
  const fieldError = (prefix: string) => Object.entries(submit.fields).find(([k]) => k.startsWith(prefix))?.[1];

  return (
    <Form onSubmit={save} label={submitLabel}>
      <div class="form-grid">
        {!contact && <TextField label="Email" type="email" value={email} onInput={setEmail} error={submit.fields.email} required autocomplete="off" />}
        <TextField label="First name" value={firstName} onInput={setFirstName} error={submit.fields.firstName} maxLength={100} />
        <TextField label="Last name" value={lastName} onInput={setLastName} error={submit.fields.lastName} maxLength={100} />
        <SelectField label="Gender" value={gender} onChange={setGender} options={GENDERS} error={submit.fields.gender} />
        <SelectField label="Language" value={language} onChange={setLanguage} options={LANGUAGES} error={submit.fields.language} />
        <SelectField label="Preferred format" value={preferredFormat} onChange={setFormat} options={FORMATS} />
      </div>
      <Loading loading={fields.loading} error={fields.error}>
        {fields.data && fields.data.some((f) => f.custom) && (
          <fieldset>
            <legend>Custom fields</legend>
            <div class="form-grid">
              {fields.data.filter((f) => f.custom).map((f) => (
                <TextField key={f.id} label={f.name} type={INPUT_TYPES[f.format] ?? 'text'} value={values[f.id] ?? ''}
                  hint={f.format === 'DATE' ? 'ISO 8601, e.g. 2026-03-01T00:00:00Z' : undefined}
                  onInput={(value) => setValues({ ...values, [f.id]: value })} error={fieldError(`customFields`)} />
              ))}
            </div>
          </fieldset>
        )}
      </Loading>
      <div class="grid">
        <fieldset>
          <legend>Lists</legend>
          <Loading loading={allLists.loading} error={allLists.error}>
            {allLists.data?.length === 0 && <p class="muted">No lists yet.</p>}
            {allLists.data?.map((l) => <Checkbox key={l.id} label={l.name} checked={lists.has(l.id)} onChange={(on) => setLists(toggle(lists, l.id, on))} />)}
          </Loading>
          <ErrorText error={fieldError('lists')} />
        </fieldset>
        <fieldset>
          <legend>Interests</legend>
          <Loading loading={allInterests.loading} error={allInterests.error}>
            {allInterests.data?.length === 0 && <p class="muted">No interests yet.</p>}
            {allInterests.data?.map((i) => <Checkbox key={i.id} label={i.name} checked={interests.has(i.id)} onChange={(on) => setInterests(toggle(interests, i.id, on))} />)}
          </Loading>
          <ErrorText error={fieldError('interests')} />
        </fieldset>
      </div>
      <ErrorText error={submit.error} />
      <SubmitButton busy={submit.busy}>{submitLabel}</SubmitButton>
    </Form>
  );
}
