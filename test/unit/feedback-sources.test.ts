// What is shown of the feedback sources (core/bounces/feedback-sources.ts): each provider's URL and
// last report, the bounce mailbox's host without its user and password, never a secret.
import { feedbackSourceViews } from '../../core/bounces/feedback-sources';

const AT = new Date('2025-11-29T10:00:00.000Z');

it('gives every provider its URL, configured or not, and the last report noted', () => {
  const views = feedbackSourceViews(
    { postmark: { username: 'herald', password: 'postmark-password' } }, 'https://herald.example.com/',
    [{ _id: 'postmark', lastReportAt: AT, lastOutcome: { events: 2, recorded: 1, ignored: 1 } }],
  );
  expect(views.feedback.map((f) => [f.provider, f.configured, f.url, f.lastReportAt])).toEqual([
    ['ses', false, 'https://herald.example.com/v1/feedback/ses', null],
    ['sendgrid', false, 'https://herald.example.com/v1/feedback/sendgrid', null],
    ['mailgun', false, 'https://herald.example.com/v1/feedback/mailgun', null],
    ['postmark', true, 'https://herald.example.com/v1/feedback/postmark', AT.toISOString()],
  ]);
  expect(views.feedback[3].lastOutcome).toEqual({ events: 2, recorded: 1, ignored: 1 });
  expect(JSON.stringify(views)).not.toContain('postmark-password');
});

it('shows the bounce mailbox by its host only, and its last read once its reader noted one', () => {
  const settings = { mailbox: { url: 'imaps://bounces%40example.com:mailbox-password@imap.example.com:993' } };
  expect(feedbackSourceViews(settings, 'https://h.example', []).mailbox)
    .toEqual({ configured: true, host: 'imaps://imap.example.com:993', lastReadAt: null, lastReportAt: null });
  const read = feedbackSourceViews(settings, 'https://h.example', [{ _id: 'mailbox', lastReadAt: AT }]);
  expect(read.mailbox.lastReadAt).toBe(AT.toISOString());
  expect(JSON.stringify(read)).not.toMatch(/mailbox-password|bounces/);
  expect(feedbackSourceViews({}, 'https://h.example', []).mailbox).toEqual({ configured: false, host: null, lastReadAt: null, lastReportAt: null });
});
