// A campaign's settings in one form: its name, the content record's subject and sender, the
// audience (lists and interests, included and excluded) and its options. Saving is the calls a
// script would make: POST or PUT /campaigns{/id}, then POST or PUT …/contents{/id}.
import { useState } from 'preact/hooks';
import { accountPath, api } from '../../api';
import { useApi } from '../../hooks';
import { Checkbox, ErrorText, Form, Notice, TextField, useSubmit } from '../../components/forms';
import { SubmitButton } from '../../components/buttons';
import { MultiSelect } from './multi-select';
import type { Campaign, Named } from './types';

/** The options the form offers, with what each does (`1` on, `0` off; USE_HEADER/USE_FOOTER absent means on). */
const OPTIONS: Array<[string, string]> = [
  ['TRACK_LINKS', 'Track link clicks'],
  ['ANALYTICS', 'Add analytics parameters to links'],
  ['VIEW_ONLINE', 'Offer a "view online" link'],
  ['SHARE_FORWARD', 'Offer "forward to a friend"'],
  ['USE_HEADER', 'Use the header links block'],
  ['USE_FOOTER', 'Use the unsubscribe footer'],
];

interface Values {
  name: string; subject: string; fromName: string; from: string; replyTo: string; replyToName: string;
  includeLists: number[]; includeInterests: number[]; excludeLists: number[]; excludeInterests: number[];
  options: Record<string, boolean>;
}

function initial(campaign: Campaign | undefined): Values {
  const content = campaign?.contents[0];
  return {
    name: campaign?.name ?? '', subject: content?.subject ?? '', fromName: content?.fromName ?? '', from: content?.from ?? '',
    replyTo: content?.replyTo ?? '', replyToName: content?.replyToName ?? '',
    includeLists: campaign?.include.lists ?? [], includeInterests: campaign?.include.interests ?? [],
    excludeLists: campaign?.exclude.lists ?? [], excludeInterests: campaign?.exclude.interests ?? [],
    options: Object.fromEntries(OPTIONS.map(([key]) => [key, (campaign?.options[key] ?? '1') !== '0'])),
  };
}

/**
 * `campaign` undefined: a new one. `locked`: why it cannot change (not a DRAFT, or a missing
 * permission); the form is shown, disabled. `onSaved` gets the campaign's id.
 */
export function CampaignForm({ campaign, locked, onSaved }: { campaign?: Campaign; locked?: string; onSaved: (id: number) => void }) {
  const [values, setValues] = useState(() => initial(campaign));
  const [savedId, setSavedId] = useState<number | undefined>(campaign?.id);
  const [saved, setSaved] = useState(false);
  const submit = useSubmit();
  const lists = useApi<Named[]>(accountPath('/lists'), { limit: 1000, sortby: 'name' });
  const interests = useApi<Named[]>(accountPath('/interests'), { limit: 1000, sortby: 'name' });
  const set = <K extends keyof Values>(key: K) => (value: Values[K]) => { setSaved(false); setValues((v) => ({ ...v, [key]: value })); };

  function save() {
    void submit.run(async () => {
      const body = {
        name: values.name,
        include: { lists: values.includeLists, interests: values.includeInterests, campaigns: campaign?.include.campaigns ?? [] },
        exclude: { lists: values.excludeLists, interests: values.excludeInterests, campaigns: campaign?.exclude.campaigns ?? [] },
        options: Object.fromEntries(Object.entries(values.options).map(([key, on]) => [key, on ? '1' : '0'])),
      };
      // A new campaign keeps its id here once created, so a refused content is saved by the next try.
      let id = savedId;
      if (id === undefined) {
        id = (await api.post<{ id: number }>(accountPath('/campaigns'), body)).data.id;
        setSavedId(id);
      } else {
        await api.put(accountPath(`/campaigns/${id}`), body);
      }
      const content = { subject: values.subject, from: values.from, fromName: values.fromName, replyTo: values.replyTo, replyToName: values.replyToName };
      const contents = await api.get<Array<{ id: number }>>(accountPath(`/campaigns/${id}/contents`));
      const existing = contents.data[0];
      if (existing) await api.put(accountPath(`/campaigns/${id}/contents/${existing.id}`), content);
      else if (values.subject || values.from || values.fromName) await api.post(accountPath(`/campaigns/${id}/contents`), content);
      setSaved(true);
      onSaved(id);
    });
  }

  const choices = (loaded: { data?: Named[] }) => (loaded.data ?? []).map((n) => ({ id: n.id, name: n.name }));
  const f = submit.fields;
  return (
    <Form onSubmit={save} label="Campaign settings">
      {locked && <Notice>{locked}</Notice>}
      <fieldset disabled={Boolean(locked)} class="campaign-form">
        <div class="form-columns">
          <div>
            <TextField label="Name" value={values.name} onInput={set('name')} error={f.name} required />
            <TextField label="Subject" value={values.subject} onInput={set('subject')} error={f.subject}
              hint="A template: ${contact.first_name} and the like are filled in for each recipient." />
            <TextField label="From name" value={values.fromName} onInput={set('fromName')} error={f.fromName} />
            <TextField label="From email" type="email" value={values.from} onInput={set('from')} error={f.from} />
            <TextField label="Reply-to email" type="email" value={values.replyTo} onInput={set('replyTo')} error={f.replyTo} hint="Empty: replies go to the sender." />
            <TextField label="Reply-to name" value={values.replyToName} onInput={set('replyToName')} error={f.replyToName} />
          </div>
          <div>
            <fieldset class="group">
              <legend>Send to</legend>
              <MultiSelect label="Include lists" choices={choices(lists)} value={values.includeLists} onChange={set('includeLists')} />
              <MultiSelect label="Include interests" choices={choices(interests)} value={values.includeInterests} onChange={set('includeInterests')} />
            </fieldset>
            <fieldset class="group">
              <legend>But not to</legend>
              <MultiSelect label="Exclude lists" choices={choices(lists)} value={values.excludeLists} onChange={set('excludeLists')} />
              <MultiSelect label="Exclude interests" choices={choices(interests)} value={values.excludeInterests} onChange={set('excludeInterests')} />
            </fieldset>
            <ErrorText error={lists.error ?? interests.error} />
            <fieldset class="group">
              <legend>Options</legend>
              {OPTIONS.map(([key, label]) => (
                <Checkbox key={key} label={label} checked={values.options[key]} onChange={(on) => set('options')({ ...values.options, [key]: on })} />
              ))}
            </fieldset>
          </div>
        </div>
        <ErrorText error={submit.error} />
        {saved && !submit.busy && <p class="ok" role="status">Saved.</p>}
        <SubmitButton busy={submit.busy}>{campaign ? 'Save' : 'Create campaign'}</SubmitButton>
      </fieldset>
    </Form>
  );
}
