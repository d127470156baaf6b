// The bounce mailbox (feedback.mailbox of the relays file) against a real IMAP server, Dovecot
// (test/support/dovecot.ts): a DSN of a message Herald sent, put in the mailbox, is recorded and
// deleted; an ARF complaint is recorded; a message that is no report is left, marked, and not read
// again; a report of no Herald message is disposed of; afterReading 'flag' flags instead of
// deleting; a wrong password and an untrusted certificate are clear errors that never show the
// password. Reads are run directly (the workflow the schedule starts, or the reader itself): no
// test waits for the schedule's time.
import { Writable } from 'node:stream';
import { ApplicationFailure } from '@temporalio/common';
import { MockActivityEnvironment } from '@temporalio/testing';
import pino from 'pino';
import { createBounceMailboxActivities } from '../../activities/bounce-mailbox';
import { imapMailboxClient } from '../../adapters/imap/imap-client';
import { MailboxError } from '../../adapters/imap/mailbox-port';
import { metrics } from '../../adapters/metrics/registry';
import { bounceMailboxSweeper, MAILBOX_OFF_NOTE, syncBounceMailboxSchedule } from '../../adapters/temporal/schedules';
import type { EventDoc } from '../../adapters/store/store';
import type { NewAccount } from '../../core/accounts/accounts';
import { readBounceMailbox, UNREADABLE_KEYWORD, type MailboxLog } from '../../core/bounces/mailbox';
import { newId } from '../../core/shared/ids';
import type { BounceMailboxRunResult } from '../../workflows/bounce-mailbox-read';
import { bounceFixture, type BounceFixture } from '../support/bounce-fixtures';
import { startDovecot, type TestMailbox } from '../support/dovecot';
import { batchEvents } from '../support/events';
import { startTestHerald, type TestHerald } from '../support/herald';
import { testTemporalLogger } from '../support/temporal-logs';
import { callHerald } from '../support/http';
import { waitUntil } from '../support/wait';
import { ledgerRowOf } from '../support/ledger';

let mailbox: TestMailbox;
let herald: TestHerald;
let acme: NewAccount;
const lines: Array<Record<string, unknown>> = [];

beforeAll(async () => {
  mailbox = await startDovecot();
  const sink = new Writable({ write(chunk: Buffer, _encoding, done) { lines.push(JSON.parse(chunk.toString())); done(); } });
  herald = await startTestHerald({
    // The relays file names the mailbox, read once an hour: the tests run each read themselves.
    relaysFile: (sinkUrl) => ({ relays: [{ name: 'sink', url: sinkUrl }], feedback: { mailbox: { url: mailbox.url, everySeconds: 3600 } } }),
    bounceMailboxCa: mailbox.ca,
    logger: pino({ level: 'info' }, sink),
  });
  acme = await herald.newAccount();
}, 30_000);
afterAll(async () => {
  await herald?.stop();
  await mailbox?.stop();
});

interface Sent { mailId: string; returnPath: string; messageId: string; sentEvent: EventDoc }

/** Sends one message to `email` through the HTTP API; resolves once the relay has it and its ledger row is written. */
async function sendTo(email: string): Promise<Sent> {
  const answer = await callHerald(herald.baseUrl, 'POST', '/v1/mail/send', {
    headers: { authorization: `Bearer ${acme.transactionalKey}` },
    json: { from: { email: 'shop@example.com' }, subject: 'Your order', content: { text: 'Thank you' }, recipients: [{ to: { email } }] },
  });
  expect(answer.status).toBe(202);
  const [sentEvent] = await batchEvents(herald.services.store, acme.account, answer.headers.get('herald-batch-id')!, 1);
  await waitUntil(`the ledger row of ${sentEvent.mail_id}`, () => ledgerRowOf(herald.services.store, { _id: sentEvent.mail_id }), 10_000, 20);
  const mail = await waitUntil(`the relay's copy for ${email}`, () => herald.sink.received.find((m) => m.rcptTo.includes(email)), 10_000);
  return { mailId: sentEvent.mail_id, returnPath: mail.mailFrom, messageId: mail.parsed.messageId!, sentEvent };
}

const report = (name: BounceFixture, sent: Pick<Sent, 'returnPath' | 'messageId'>, recipient: string) =>
  bounceFixture(name, { return_path: sent.returnPath, recipient, message_id: sent.messageId, report_to: `fbl@${herald.herald.config.bounceDomain}` });

/** One run of the reader's workflow, as its schedule starts it. */
function readNow(): Promise<BounceMailboxRunResult> {
  return herald.services.temporal.workflow.execute('BounceMailboxRead', {
    taskQueue: herald.services.taskQueue, workflowId: `bounce-mailbox-test-${newId()}`, args: [],
  });
}

const eventsOf = (mailId: string) => herald.services.store.events.find({ account: acme.account, mail_id: mailId }).toArray();
const counted = async (outcome: string) => (await metrics.bounceMailboxReports.get()).values.find((v) => v.labels.outcome === outcome)?.value ?? 0;
const logged = (message: string) => lines.filter((line) => line.msg === message);

describe('the schedule', () => {
  it('is created by the worker with the setting\'s period, paused with a note when the setting is gone, resumed when it is back', async () => {
    const { temporal, taskQueue } = herald.services;
    const handle = temporal.schedule.getHandle(bounceMailboxSweeper(taskQueue).scheduleId);
    const described = await handle.describe();
    expect(described.spec.intervals?.[0]?.every).toBe(3600_000);
    expect(described.action).toMatchObject({ workflowType: 'BounceMailboxRead', taskQueue, args: [] });
    expect(described.state.paused).toBe(false);

    // A worker started without the setting: nothing keeps reading a mailbox the settings no longer name.
    expect(await syncBounceMailboxSchedule(temporal, taskQueue, undefined)).toBe('paused');
    expect((await handle.describe()).state).toMatchObject({ paused: true, note: MAILBOX_OFF_NOTE });
    // One with the setting again (another period): resumed, at its period.
    expect(await syncBounceMailboxSchedule(temporal, taskQueue, 600)).toBe('updated');
    const resumed = await handle.describe();
    expect(resumed.state.paused).toBe(false);
    expect(resumed.spec.intervals?.[0]?.every).toBe(600_000);
    expect(await syncBounceMailboxSchedule(temporal, taskQueue, 600)).toBe('kept');
    // The rest of this file runs its reads itself.
    await handle.pause('tests read the mailbox themselves');
  });
});

describe('reading the mailbox', () => {
  it('records a DSN of a message Herald sent (event, suppression) and deletes it', async () => {
    const email = 'gone.imap@example.org';
    const sent = await sendTo(email);
    const before = await counted('bounce');
    await mailbox.deliver(report('postfix-hard', sent, email));

    expect(await readNow()).toMatchObject({ bounces: 1, complaints: 0, nothing: 0, unreadable: 0, more: false });
    const bounced = (await eventsOf(sent.mailId)).filter((e) => e.track_type === 'track.mail.bounced');
    expect(bounced).toHaveLength(1);
    expect(bounced[0]).toMatchObject({ email, bounce_type: 'hard', batch_id: sent.sentEvent.batch_id, message: expect.stringContaining('550 5.1.1') });
    expect(await herald.services.store.suppressions.findOne({ account: acme.account, email })).toMatchObject({ reason: 'bounced', source: 'report' });
    expect(await mailbox.list()).toEqual([]);
    expect(await counted('bounce')).toBe(before + 1);
    expect(logged('bounce mailbox: report recorded').at(-1)).toMatchObject({ mailId: sent.mailId, recorded: 'bounce', disposed: 'delete' });
    expect((await metrics.bounceMailboxLastRead.get()).values[0].value).toBeGreaterThan(Date.now() / 1000 - 60);
    // The console's "last read" and "last report" of the mailbox.
    expect(await herald.services.store.feedbackSources.findOne({ _id: 'mailbox' })).toMatchObject({ lastReadAt: expect.any(Date), lastOutcome: { recorded: 1 } });
  });

  it('records an ARF complaint (unsubscribed, spam_fbl; suppressed as complained)', async () => {
    const email = 'angry.imap@example.org';
    const sent = await sendTo(email);
    await mailbox.deliver(report('arf-abuse', sent, email));

    expect(await readNow()).toMatchObject({ complaints: 1, bounces: 0 });
    const [complaint] = (await eventsOf(sent.mailId)).filter((e) => e.track_type === 'track.mail.unsubscribed');
    expect(complaint).toMatchObject({ email, reason: 'spam_fbl' });
    expect(await herald.services.store.suppressions.findOne({ account: acme.account, email })).toMatchObject({ reason: 'complained' });
    expect(await mailbox.list()).toEqual([]);
  });

  it('leaves a message that is no report, marked, and does not read it again', async () => {
    const sent = await sendTo('away.imap@example.org');
    const autoReply = await mailbox.deliver(report('auto-reply', sent, 'away.imap@example.org'));
    const garbage = await mailbox.deliver(Buffer.from('From: someone@example.net\r\nSubject: hello?\r\n\r\nIs anyone there?\r\n'));

    expect(await readNow()).toMatchObject({ unreadable: 2, bounces: 0, complaints: 0, nothing: 0 });
    const left = await mailbox.list();
    expect(left.map((m) => m.uid).sort()).toEqual([autoReply, garbage].sort());
    for (const message of left) expect(message.flags).toContain(UNREADABLE_KEYWORD);
    expect(left.flatMap((m) => m.flags)).not.toContain('\\Deleted');
    expect(logged('bounce mailbox: a message that is no report, left for a person').map((l) => l.uid)).toEqual(expect.arrayContaining([autoReply, garbage]));

    // The next read skips them.
    expect(await readNow()).toMatchObject({ unreadable: 0, bounces: 0, complaints: 0, nothing: 0 });
    expect((await mailbox.list()).map((m) => m.uid).sort()).toEqual([autoReply, garbage].sort());
    expect((await eventsOf(sent.mailId)).map((e) => e.track_type)).toEqual(['track.mail.sent']);
  });

  it('disposes of a report that names no message Herald sent, with a log line', async () => {
    const unknown = { returnPath: 'someone@elsewhere.example', messageId: '<mail_0000000000unknown@herald.test>' };
    const uid = await mailbox.deliver(report('postfix-hard', unknown, 'stranger@example.org'));
    const unreadableBefore = (await mailbox.list()).filter((m) => m.flags.includes(UNREADABLE_KEYWORD)).length;

    expect(await readNow()).toMatchObject({ nothing: 1, bounces: 0, unreadable: 0 });
    const after = await mailbox.list();
    expect(after.map((m) => m.uid)).not.toContain(uid);
    expect(after).toHaveLength(unreadableBefore);
    expect(logged('bounce mailbox: report taken, nothing to record').at(-1)).toMatchObject({ uid, disposed: 'delete', why: expect.any(String) });
    expect(await herald.services.store.suppressions.findOne({ account: acme.account, email: 'stranger@example.org' })).toBeNull();
  });
});

describe('the reader with other settings (over IMAP, without the schedule)', () => {
  const quiet = (): MailboxLog & { lines: Array<{ fields: object; message: string }> } => {
    const kept: Array<{ fields: object; message: string }> = [];
    const keep = (fields: object, message: string) => { kept.push({ fields, message }); };
    return { lines: kept, info: keep, warn: keep, error: keep };
  };
  const deps = (log: MailboxLog) => ({
    store: herald.services.store, bounceDomain: herald.herald.config.bounceDomain, client: imapMailboxClient({ tls: { ca: mailbox.ca } }), log,
  });

  it('afterReading flag: the report is recorded, flagged \\Seen and left; the next read skips it', async () => {
    const email = 'flagged.imap@example.org';
    const sent = await sendTo(email);
    const uid = await mailbox.deliver(report('postfix-hard', sent, email), 'Reports');
    const target = { url: mailbox.url, folder: 'Reports', afterReading: 'flag' as const };

    expect(await readBounceMailbox(deps(quiet()), target)).toMatchObject({ bounces: 1 });
    expect((await eventsOf(sent.mailId)).filter((e) => e.track_type === 'track.mail.bounced')).toHaveLength(1);
    const [left] = await mailbox.list('Reports');
    expect(left.uid).toBe(uid);
    expect(left.flags).toContain('\\Seen');
    expect(left.flags).not.toContain('\\Deleted');
    expect(await readBounceMailbox(deps(quiet()), target)).toMatchObject({ bounces: 0, nothing: 0, unreadable: 0 });
  });

  it('a wrong password is a clear error, logged without the password', async () => {
    const wrong = 'not-the-Secret-42';
    const log = quiet();
    const target = { url: `imaps://${mailbox.user}:${wrong}@127.0.0.1:${mailbox.port}`, folder: 'INBOX', afterReading: 'delete' as const };
    const failure = await readBounceMailbox(deps(log), target).then(() => undefined, (error: unknown) => error);
    expect(failure).toBeInstanceOf(MailboxError);
    expect(failure).toMatchObject({ kind: 'login', message: expect.stringMatching(/refused the login/) });
    expect((failure as Error).message).toContain(`imaps://${mailbox.user}@127.0.0.1:${mailbox.port}/INBOX`);
    expect(log.lines).toHaveLength(1);
    expect(log.lines[0]).toMatchObject({ message: 'bounce mailbox: cannot read it', fields: { problem: 'login' } });
    const written = JSON.stringify(log.lines) + String((failure as Error).message) + String((failure as Error).stack);
    expect(written).not.toContain(wrong);
    expect(written).not.toContain(mailbox.password);
  });

  it('a refused login fails the activity without retries (the settings must change first)', async () => {
    const activities = createBounceMailboxActivities({
      store: herald.services.store, mtaHost: 'herald.test', mailboxClient: imapMailboxClient({ tls: { ca: mailbox.ca } }), logger: pino({ level: 'silent' }),
      bounceMailbox: { url: `imaps://${mailbox.user}:not-it-at-all@127.0.0.1:${mailbox.port}` },
    });
    const failure = await new MockActivityEnvironment({}, { logger: testTemporalLogger }).run(activities.readBounceMailbox).then(() => undefined, (e: unknown) => e);
    expect(failure).toBeInstanceOf(ApplicationFailure);
    expect(failure).toMatchObject({ nonRetryable: true, type: 'BounceMailboxLogin', message: expect.stringMatching(/refused the login/) });
    expect((failure as Error).message).not.toContain('not-it-at-all');
  });

  it('a folder the server does not have is a clear error', async () => {
    const target = { url: mailbox.url, folder: 'No such folder', afterReading: 'delete' as const };
    await expect(readBounceMailbox(deps(quiet()), target)).rejects.toMatchObject({ kind: 'folder', message: expect.stringContaining('"No such folder" cannot be opened') });
  });

  it('checks the server\'s certificate: an untrusted one is a TLS error', async () => {
    const log = quiet();
    const target = { url: mailbox.url, folder: 'INBOX', afterReading: 'delete' as const };
    const untrusting = { ...deps(log), client: imapMailboxClient() };
    await expect(readBounceMailbox(untrusting, target)).rejects.toMatchObject({ kind: 'connection', message: expect.stringMatching(/TLS failed/) });
    expect(JSON.stringify(log.lines)).not.toContain(mailbox.password);
  });
});
