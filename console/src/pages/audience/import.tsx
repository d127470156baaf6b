// /contacts/import: a CSV file (uploaded once: POST /contacts/import/upload) or pasted CSV, the
// target list and mode, an optional preview with the column mapping (POST …/import/preview),
// then the import task (POST /contacts/import) followed by a progress bar until it ends.
import { useState } from 'preact/hooks';
import { accountPath, api, request } from '../../api';
import { to } from '../../routes';
import { can } from '../../session';
import { count } from '../../format';
import { ActionButton } from '../../components/buttons';
import { ErrorText, SelectField, TextArea } from '../../components/forms';
import { Page, Section } from '../../components/page';
import { useAllFields, useAllLists } from './choices';
import { ColumnMapping, PreviewRows, type Preview } from './import-preview';
import { TaskProgress, useTask, type Task } from '../../components/task';
import './audience.css';

const MODES = [
  { value: 'IGNORE', label: 'Leave existing contacts as they are' },
  { value: 'OVERWRITE', label: 'Update existing contacts (needs contacts:update)' },
];

export function ImportContacts() {
  const [file, setFile] = useState<File | null>(null);
  const [uploaded, setUploaded] = useState<{ file: File; id: string } | null>(null);
  const [pasted, setPasted] = useState('');
  const [list, setList] = useState('');
  const [mode, setMode] = useState('IGNORE');
  const [preview, setPreview] = useState<Preview | null>(null);
  const [mapping, setMapping] = useState<number[]>([]);
  const [started, setStarted] = useState<Task | null>(null);
  const { task, error: pollError, ended } = useTask(started);
  const lists = useAllLists();
  const fields = useAllFields();
  const allowed = can('contacts:create') && can('tasks:list');
  const hasSource = file !== null || pasted.trim() !== '';
  const running = started !== null && !ended;

  /** The file's stored name, uploading it the first time it is used. */
  async function source(): Promise<{ sourceFile: string } | { sourceRaw: string }> {
    if (!file) return { sourceRaw: pasted };
    if (uploaded?.file === file) return { sourceFile: uploaded.id };
    const form = new FormData();
    form.append('fileToUpload', file, file.name);
    const { data } = await request<{ id: string }>(accountPath('/contacts/import/upload'), { method: 'POST', raw: { body: form } });
    setUploaded({ file, id: data.id });
    return { sourceFile: data.id };
  }
  const choices = () => ({ ...(list ? { list: Number(list) } : {}), mode });
  const changed = () => { setPreview(null); setStarted(null); };

  async function showPreview() {
    const { data } = await api.post<Preview>(accountPath('/contacts/import/preview'), { ...(await source()), ...choices() });
    setPreview(data);
    setMapping(data.columns.map((c) => c.field));
  }

  async function startImport() {
    // With a preview: its options as shown (the separator, header… it inferred) and the mapping as changed here.
    const { sourceFile: _ignored, ...options } = (preview?.options ?? {}) as Record<string, unknown>;
    const body = { ...(preview ? { ...options, columnFields: mapping } : {}), ...(await source()), ...choices() };
    const answer = await request<never>(accountPath('/contacts/import'), { method: 'POST', body });
    setStarted(answer.task as unknown as Task);
  }

  const result = task?.state === 'FINISHED' ? task.result as { rows: number; created: number; updated: number; ignored: number; errors: number; errorSamples: Array<{ row: number; message: string }> } : null;
  return (
    <Page title="Import contacts">
      <p><a href={to('/contacts')}>← All contacts</a></p>
      {!allowed && <p class="error">Importing needs the permissions contacts:create and tasks:list.</p>}
      <Section title="Source">
        <div class="field">
          <label for="import-file">CSV file</label>
          <input id="import-file" type="file" accept=".csv,.txt,text/csv,text/plain" disabled={running}
            onChange={(e) => { setFile(e.currentTarget.files?.[0] ?? null); changed(); }} />
          <p class="hint">Up to 50 MB. The separator, a header row and the columns are recognised; the preview shows them.</p>
        </div>
        <TextArea label="Or paste CSV" value={pasted} disabled={file !== null || running} onInput={(v) => { setPasted(v); changed(); }}
          placeholder={'email,first name,last name\nada@example.com,Ada,Lovelace'} />
        <div class="form-grid">
          <SelectField label="Add every contact to the list" value={list} disabled={running} onChange={(v) => { setList(v); changed(); }}
            options={[{ value: '', label: 'No list' }, ...(lists.data ?? []).map((l) => ({ value: String(l.id), label: l.name }))]} />
          <SelectField label="Contacts that exist already" value={mode} disabled={running} onChange={(v) => { setMode(v); changed(); }} options={MODES} />
        </div>
        <ErrorText error={lists.error} />
        <div class="buttons">
          <ActionButton disabled={!allowed || !hasSource || running} why="Choose a file or paste CSV first" onAction={showPreview}>Preview</ActionButton>
          <ActionButton kind="primary" disabled={!allowed || !hasSource || running} why="Choose a file or paste CSV first" onAction={startImport}>
            Start import
          </ActionButton>
        </div>
      </Section>
      {preview && !started && (
        <Section title="Preview">
          <p class="muted">Each column and the field it fills; change one before starting the import.</p>
          {fields.data && <ColumnMapping columns={preview.columns} fields={fields.data} mapping={mapping} onChange={setMapping} />}
          <PreviewRows rows={preview.contacts} />
        </Section>
      )}
      {task && (
        <Section title="Import">
          <TaskProgress task={task} error={pollError} label={`Importing: ${task.name}`} />
          {result && (
            <>
              <dl class="stats" aria-label="Import result">
                {(['rows', 'created', 'updated', 'ignored', 'errors'] as const).map((key) => (
                  <div key={key} class="stat"><dt>{key[0].toUpperCase() + key.slice(1)}</dt><dd>{count(result[key])}</dd></div>
                ))}
              </dl>
              {result.errorSamples.length > 0 && (
                <ul class="error-samples">{result.errorSamples.map((s) => <li key={s.row}>Row {s.row}: {s.message}</li>)}</ul>
              )}
              <p><a href={to(list ? `/contacts?list=${list}` : '/contacts')}>See the contacts</a></p>
            </>
          )}
          {running && (
            <ActionButton kind="danger" onAction={() => api.post(accountPath(`/tasks/${task.id}/cancel`))}>Cancel import</ActionButton>
          )}
        </Section>
      )}
    </Page>
  );
}
