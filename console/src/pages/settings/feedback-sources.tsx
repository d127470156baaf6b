// The providers' webhooks (the URL to paste into each provider, and whether a report ever came in:
// a webhook never called is the usual set-up mistake) and the bounce mailbox. Never a secret: the
// API has none to give.
import { CopyButton } from '../../components/copy-button';
import { Details, Section } from '../../components/page';
import { Table } from '../../components/table';
import { ago, dateTime } from '../../format';
import type { BounceMailbox, FeedbackSource } from './types';

const NAMES: Record<FeedbackSource['provider'], string> = { ses: 'Amazon SES (through SNS)', sendgrid: 'SendGrid', mailgun: 'Mailgun', postmark: 'Postmark' };

function LastReport({ at, outcome }: { at: string | null; outcome?: FeedbackSource['lastOutcome'] }) {
  if (!at) return <span class="muted">never</span>;
  return (
    <>
      <time dateTime={at} title={dateTime(at)}>{ago(at)}</time>
      {outcome && <span class="hint">{outcome.recorded} recorded, {outcome.ignored} ignored</span>}
    </>
  );
}

export function FeedbackSources({ feedback, mailbox }: { feedback: FeedbackSource[]; mailbox: BounceMailbox }) {
  return (
    <Section title="Feedback sources">
      <p class="muted">
        Bounces and complaints of mail sent through a provider come back as its webhook: give the provider its URL below, and put its secret in
        the relays file's <code>feedback</code>. Postmark's URL also carries the basic-auth pair of <code>feedback.postmark</code>.
      </p>
      <Table caption="Feedback sources" rows={feedback} rowKey={(f) => f.provider}
        columns={[
          { label: 'Provider', cell: (f) => NAMES[f.provider] },
          { label: 'Configured', cell: (f) => (f.configured ? <span class="badge relay-up">configured</span> : <span class="badge">not configured</span>) },
          { label: 'URL to give the provider', cell: (f) => <span class="feedback-url"><code>{f.url}</code><CopyButton text={f.url} label={`${NAMES[f.provider]} URL`} /></span> },
          { label: 'Last report', cell: (f) => <LastReport at={f.lastReportAt} outcome={f.lastOutcome} /> },
        ]} />
      <h3>Bounce mailbox</h3>
      <Details items={[
        ['Mailbox', mailbox.configured ? <code>{mailbox.host}</code> : <span class="muted">not configured (<code>feedback.mailbox</code>)</span>],
        ['Last read', <LastReport key="read" at={mailbox.lastReadAt} />],
        ['Last report', <LastReport key="report" at={mailbox.lastReportAt} />],
      ]} />
    </Section>
  );
}
