// Real-shaped reports (test/fixtures/bounces) read with mailparser and classified.
import { simpleParser } from 'mailparser';
import { reportedMailId } from '../../core/bounces/intake';
import { bounceMessage, MESSAGE_MAX_CHARS, outcomeOf } from '../../core/bounces/outcome';
import { parseReport, readReport, REPORT_PARSER_OPTIONS, type Report } from '../../core/bounces/report';
import { addressOfField, readFieldGroups } from '../../core/bounces/report-fields';
import { returnPathOf } from '../../core/bounces/return-path';
import { bounceFixture, type BounceFixture } from '../support/bounce-fixtures';

const secret = Buffer.alloc(32, 7);
const domain = 'bounces.herald.example';
const mailId = 'mail_2x9k4q7b1m3n5p8r0t6v';
const values = {
  return_path: returnPathOf(mailId, secret, domain), recipient: 'ada@example.org', message_id: `<${mailId}@herald.example>`, report_to: `fbl@${domain}`,
};
const read = (name: BounceFixture) => parseReport(bounceFixture(name, values));

describe('DSN reports (RFC 3464)', () => {
  it('Postfix, user unknown: a hard bounce, the notice\'s first lines and the diagnostic', async () => {
    const report = await read('postfix-hard');
    expect(report).toMatchObject({
      kind: 'dsn',
      id: 'message-id:<20260302091503.4ZQ1x52mTkz9sWR@mail.example.net>',
      recipients: [{ action: 'failed', status: '5.1.1', finalRecipient: 'ada@example.org', originalRecipient: 'ada@example.org' }],
      reported: { messageId: values.message_id, returnPath: values.return_path },
    });
    const outcome = outcomeOf(report, 'Ada@Example.org');
    expect(outcome).toEqual({ kind: 'bounce', bounceType: 'hard', message: expect.any(String) });
    const message = (outcome as { message: string }).message;
    expect(message.split('\n')[0]).toBe('This is the mail system at host mail.example.net.');
    expect(message).toContain('Diagnostic-Code: smtp; 550 5.1.1 <ada@example.org>: Recipient address rejected: User unknown in virtual mailbox table');
    expect(message.split('\n').length).toBeLessThanOrEqual(6);
  });

  it('Exchange Online, recipient not found: hard, from the plain part of its alternative', async () => {
    const report = await read('exchange-hard');
    expect(report).toMatchObject({ kind: 'dsn', recipients: [{ action: 'failed', status: '5.1.10' }], reported: { messageId: values.message_id } });
    const outcome = outcomeOf(report, 'ada@example.org') as { kind: string; bounceType: string; message: string };
    expect(outcome.bounceType).toBe('hard');
    expect(outcome.message.split('\n')[0]).toBe('Your message to ada@example.org couldn\'t be delivered.');
    expect(outcome.message).toContain('RESOLVER.ADR.RecipientNotFound');
  });

  it('Postfix delay warning (4.2.2, Action delayed, headers only returned): a soft bounce', async () => {
    const report = await read('postfix-delayed');
    expect(report).toMatchObject({ kind: 'dsn', recipients: [{ action: 'delayed', status: '4.2.2' }], reported: { messageId: values.message_id } });
    expect(outcomeOf(report, 'ada@example.org')).toMatchObject({ kind: 'bounce', bounceType: 'soft', message: expect.stringContaining('452 4.2.2') });
  });

  it('classifies by the status class first, then the action', () => {
    const dsn = (recipients: Array<Record<string, string>>): Report => ({ kind: 'dsn', id: 'x', text: 'text', reported: {}, recipients: recipients as never });
    const typeOf = (r: Record<string, string>) => (outcomeOf(dsn([{ finalRecipient: 'a@b.example', ...r }]), 'a@b.example') as { bounceType?: string }).bounceType;
    expect(typeOf({ action: 'failed', status: '5.7.1' })).toBe('hard');
    expect(typeOf({ action: 'failed', status: '4.4.7' })).toBe('soft'); // expired after retries: the mailbox may exist
    expect(typeOf({ action: 'failed' })).toBe('hard');
    expect(typeOf({ action: 'delayed' })).toBe('soft');
    expect(outcomeOf(dsn([{ action: 'delivered', status: '2.0.0', finalRecipient: 'a@b.example' }]), 'a@b.example').kind).toBe('none');
    expect(outcomeOf(dsn([{ action: 'relayed', finalRecipient: 'a@b.example' }]), 'a@b.example').kind).toBe('none');
  });

  it('is not the recipient\'s bounce when it is only about another address of the message (a cc copy)', () => {
    const report: Report = { kind: 'dsn', id: 'x', text: '', reported: {}, recipients: [{ action: 'failed', status: '5.1.1', finalRecipient: 'cc@example.net' }] };
    expect(outcomeOf(report, 'ada@example.org')).toMatchObject({ kind: 'none', why: expect.stringContaining('cc or bcc') });
    const both: Report = { ...report, recipients: [...report.recipients, { action: 'delayed', status: '4.2.2', finalRecipient: 'ada@example.org' }] };
    expect(outcomeOf(both, 'ada@example.org')).toMatchObject({ kind: 'bounce', bounceType: 'soft' });
    const unnamed: Report = { ...report, recipients: [{ action: 'failed', status: '5.1.1' }] };
    expect(outcomeOf(unnamed, 'ada@example.org')).toMatchObject({ kind: 'bounce', bounceType: 'hard' });
  });
});

describe('ARF reports (RFC 5965)', () => {
  it('a feedback loop\'s abuse report with the message inline: a complaint, the message found by Original-Mail-From', async () => {
    const report = await read('arf-abuse');
    expect(report).toMatchObject({ kind: 'arf', feedbackType: 'abuse', originalMailFrom: values.return_path });
    expect(outcomeOf(report, 'ada@example.org')).toEqual({ kind: 'complaint' });
    expect(reportedMailId(report, secret, domain)).toBe(mailId);
  });

  it('a report with only the headers and no Original-Mail-From: the message found by its Message-ID', async () => {
    const report = await read('arf-headers-only');
    expect(report).toMatchObject({ kind: 'arf', feedbackType: 'abuse', reported: { messageId: values.message_id } });
    expect((report as { originalMailFrom?: string }).originalMailFrom).toBeUndefined();
    expect(reportedMailId(report, secret, domain)).toBe(mailId);
  });

  it('a forged return path in a report names nothing; a DSN sent to a report mailbox is found by the returned message', async () => {
    const forged = bounceFixture('arf-abuse', { ...values, return_path: `${mailId.slice(5)}-00000000000000000000@${domain}`, message_id: '<other@elsewhere.example>' });
    expect(reportedMailId(await parseReport(forged), secret, domain)).toBeUndefined();
    expect(reportedMailId(await read('postfix-hard'), secret, domain)).toBe(mailId);
  });

  it('only abuse, fraud and virus reports are complaints', async () => {
    for (const [type, kind] of [['abuse', 'complaint'], ['fraud', 'complaint'], ['virus', 'complaint'], ['not-spam', 'none'], ['auth-failure', 'none'], ['other', 'none']]) {
      const raw = bounceFixture('arf-abuse', values).toString('utf8').replace('Feedback-Type: abuse', `Feedback-Type: ${type}`);
      expect(outcomeOf(await parseReport(Buffer.from(raw)), 'ada@example.org').kind).toBe(kind);
    }
  });
});

describe('other mail to a return path', () => {
  it('an out-of-office reply is no report', async () => {
    const report = await read('auto-reply');
    expect(report.kind).toBe('other');
    expect(outcomeOf(report, 'ada@example.org').kind).toBe('none');
  });

  it('a report without a Message-ID is identified by its bytes, the same each time', async () => {
    const raw = bounceFixture('postfix-hard', values).toString('utf8').replace(/^Message-Id: .*\r\n/m, '');
    const parsed = await simpleParser(raw, REPORT_PARSER_OPTIONS);
    const a = readReport(parsed, undefined, 'digest-1');
    expect(a.id).toBe('sha256:digest-1');
    expect((await parseReport(Buffer.from(raw))).id).toBe((await parseReport(Buffer.from(raw))).id);
  });
});

describe('report fields and the bounce message', () => {
  it('reads groups, folded lines and address fields', () => {
    const groups = readFieldGroups('Reporting-MTA: dns; a.example\r\n\r\nFinal-Recipient: rfc822;\r\n  <Ada@Example.org>\r\nAction: failed\r\nAction: delayed\r\nnot a field\r\n');
    expect(groups).toHaveLength(2);
    expect(groups[1].get('action')).toBe('failed');
    expect(addressOfField(groups[1].get('final-recipient'))).toBe('ada@example.org');
    expect(addressOfField('x400; /C=US/')).toBeUndefined();
    expect(addressOfField('<ada@example.org>')).toBe('ada@example.org');
  });

  it('bounds the message, keeping room for the diagnostic', () => {
    const long = Array.from({ length: 10 }, (_, i) => `${i}${'x'.repeat(400)}`).join('\n');
    const message = bounceMessage(long, 'smtp; 550 5.1.1 unknown');
    expect(message.length).toBeLessThanOrEqual(MESSAGE_MAX_CHARS);
    expect(message.endsWith('Diagnostic-Code: smtp; 550 5.1.1 unknown')).toBe(true);
    expect(bounceMessage('\n\nfirst\n\nsecond\n', undefined)).toBe('first\nsecond');
    expect(bounceMessage('said: smtp; 550 5.1.1 unknown', 'smtp; 550 5.1.1 unknown')).toBe('said: smtp; 550 5.1.1 unknown');
  });
});
