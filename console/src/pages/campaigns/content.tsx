// A campaign's content: its body in HTML or MJML and its text part, a live preview of the message
// as a recipient gets it (POST …/contents/{id}/preview with the unsaved body, debounced; shown in
// an empty-sandbox iframe: no scripts, no same origin), save (PUT ….html and ….txt) and a test send.
import { useEffect, useState } from 'preact/hooks';
import { accountPath, api, messageOf, request } from '../../api';
import { useApi } from '../../hooks';
import { to } from '../../routes';
import { can } from '../../session';
import { ActionButton } from '../../components/buttons';
import { ErrorText, Notice, SelectField, TextArea, TextField } from '../../components/forms';
import { CodeBlock, Loading, Page, Section } from '../../components/page';
import { getText } from './raw';
import { campaignPath, type Campaign, type CampaignContent } from './types';

type Format = 'html' | 'mjml';
interface Preview { subject: string; html: string; text: string; contact?: { email: string; sample: boolean } }

// A web-safe font: MJML's default (Ubuntu) pulls a Google Fonts stylesheet, which many mail
// clients do not load.
const MJML_START = `<mjml>
  <mj-head>
    <mj-attributes><mj-all font-family="Helvetica, Arial, sans-serif" /></mj-attributes>
  </mj-head>
  <mj-body>
    <mj-section>
      <mj-column>
        <mj-text>Hello \${contact.first_name!"there"},</mj-text>
      </mj-column>
    </mj-section>
  </mj-body>
</mjml>`;

const isMjml = (body: string) => /^\uFEFF?\s*<mjml[\s>]/i.test(body);

export function CampaignContentPage({ id }: { id: string }) {
  const { data: campaign, error, loading } = useApi<Campaign>(accountPath(`/campaigns/${encodeURIComponent(id)}`));
  const content = campaign?.contents[0];
  return (
    <Page title={campaign ? `Content of ${campaign.name}` : 'Content'} actions={campaign && <a href={to(campaignPath(campaign.id))}>Back to the campaign</a>}>
      <Loading loading={loading} error={error}>
        {campaign && !content && (
          <Notice>
            The campaign has no content yet: give it a subject and a sender on <a href={to(campaignPath(campaign.id))}>its page</a> first.
          </Notice>
        )}
        {campaign && content && <ContentEditor campaign={campaign} content={content} />}
      </Loading>
    </Page>
  );
}

function ContentEditor({ campaign, content }: { campaign: Campaign; content: CampaignContent }) {
  const base = accountPath(`/campaigns/${campaign.id}/contents/${content.id}`);
  const [loaded, setLoaded] = useState<{ body: string; text: string } | null>(null);
  const [loadError, setLoadError] = useState<string | null>(null);
  const [format, setFormat] = useState<Format>('html');
  const [body, setBody] = useState('');
  const [text, setText] = useState('');
  const [textChanged, setTextChanged] = useState(false);
  const [saved, setSaved] = useState<string | null>(null);

  useEffect(() => {
    // An MJML body reopens as its MJML source (…/.mjml); an HTML one as its HTML.
    Promise.all([getText(`${base}.mjml`), getText(`${base}.html`), getText(`${base}.txt`)]).then(
      ([mjml, html, plain]) => {
        const source = mjml || html;
        if (mjml) setFormat('mjml');
        setLoaded({ body: source, text: plain });
        setBody(source);
        setText(plain);
      },
      (caught) => setLoadError(messageOf(caught)),
    );
  }, [base]);

  const dirty = loaded !== null && (body !== loaded.body || text !== loaded.text);
  const locked = campaign.state !== 'DRAFT' ? `A ${campaign.state.toLowerCase()} campaign's content cannot change.`
    : !can('campaigns:update') ? 'You lack the campaigns:update permission: you can read this content but not change it.' : undefined;

  async function save() {
    setSaved(null);
    const answer = await request<{ mjml?: boolean }>(`${base}.html`, { method: 'PUT', raw: { body, contentType: 'text/html; charset=utf-8' } });
    if (textChanged) await request(`${base}.txt`, { method: 'PUT', raw: { body: text, contentType: 'text/plain; charset=utf-8' } });
    // The text part as the API now gives it (the one set, or derived from the new HTML).
    const plain = await getText(`${base}.txt`);
    setText(plain);
    setTextChanged(false);
    setLoaded({ body, text: plain });
    setSaved(answer.data.mjml ? 'Saved: the MJML compiled.' : 'Saved.');
  }

  if (loadError) return <ErrorText error={loadError} />;
  if (!loaded) return <p class="muted" role="status">Loading…</p>;
  return (
    <div class="content-editor">
      <div class="content-columns">
      <Section title="Message">
        {locked && <Notice>{locked}</Notice>}
        <p class="muted">Subject: <strong>{content.subject}</strong> · From {content.fromName} &lt;{content.from}&gt;</p>
        <fieldset disabled={Boolean(locked)}>
          <SelectField label="Format" value={format} onChange={(value) => {
            setFormat(value as Format);
            if (value === 'mjml' && body.trim() === '') setBody(MJML_START);
          }} options={[{ value: 'html', label: 'HTML' }, { value: 'mjml', label: 'MJML (compiled to HTML when saved)' }]} />
          <TextArea label={format === 'mjml' ? 'MJML body' : 'HTML body'} value={body} onInput={setBody} rows={18} spellcheck={false} class="code" />
          <TextArea label="Text part" value={text} onInput={(value) => { setText(value); setTextChanged(true); }} rows={6}
            placeholder="Empty: the text is derived from the HTML." />
          <p class="hint">Left as it is, the text part stays the one derived from the HTML.</p>
        </fieldset>
        <div class="action-row">
          <ActionButton kind="primary" onAction={save} disabled={Boolean(locked) || !dirty} why={locked ?? 'Nothing to save'}>Save</ActionButton>
          {dirty && <span class="muted">Unsaved changes</span>}
          {saved && !dirty && <span class="ok" role="status">{saved}</span>}
        </div>
      </Section>
      <Section title="Preview">
        <LivePreview base={base} format={format} body={body} text={textChanged ? text : undefined} />
      </Section>
      </div>
      <Section title="Send a test">
        <TestSend base={base} dirty={dirty} />
      </Section>
    </div>
  );
}

/** The message as a recipient would get it, rendered by the API from what is in the editor (half a second after typing stops). */
function LivePreview({ base, format, body, text }: { base: string; format: Format; body: string; text?: string }) {
  const [preview, setPreview] = useState<Preview | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    let current = true;
    const timer = setTimeout(() => {
      const source = isMjml(body) || format === 'mjml' ? { mjml: body } : { html: body };
      api.post<Preview>(`${base}/preview`, { ...(body.trim() ? source : {}), ...(text !== undefined ? { text } : {}) }).then(
        ({ data }) => { if (current) { setPreview(data); setError(null); } },
        (caught) => { if (current) setError(messageOf(caught)); },
      );
    }, 500);
    return () => { current = false; clearTimeout(timer); };
  }, [base, format, body, text]);
  return (
    <div class="preview" aria-live="polite">
      <ErrorText error={error} />
      {preview && (
        <>
          <p>Subject as received: <strong>{preview.subject}</strong></p>
          {preview.contact && <p class="muted">For {preview.contact.email}{preview.contact.sample ? ' (a sample contact)' : ''}</p>}
          <iframe class="preview" sandbox="" srcdoc={preview.html} title="Preview of the message" />
          <details>
            <summary>Text part</summary>
            <CodeBlock class="text-part" label="The text part" text={preview.text} />
          </details>
        </>
      )}
      {!preview && !error && <p class="muted" role="status">Rendering…</p>}
    </div>
  );
}

function TestSend({ base, dirty }: { base: string; dirty: boolean }) {
  const [email, setEmail] = useState('');
  const [result, setResult] = useState<string | null>(null);
  const why = !can('campaigns:launch') ? 'You lack the campaigns:launch permission' : dirty ? 'Save the content first: a test sends the saved content' : undefined;
  async function send() {
    setResult(null);
    const { data } = await api.post<{ emails: string[]; batchId: string }>(`${base}/sendtest`, { emails: [email.trim()] });
    setResult(`Test sent to ${data.emails.join(', ')} (batch ${data.batchId}).`);
  }
  return (
    <div class="action-row schedule">
      <TextField label="Test address" type="email" value={email} onInput={setEmail} autocomplete="email" />
      <ActionButton onAction={send} disabled={Boolean(why)} why={why}>Send a test</ActionButton>
      {result && <span class="ok" role="status">{result}</span>}
      {why && <span class="muted">{why}</span>}
    </div>
  );
}
