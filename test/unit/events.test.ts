import { buildEvent } from '../../core/tracking/events';

const subject = {
  account: 'acme', batch_id: 'acme_transactional_x', mail_id: 'mail_1', email: 'Ada@Example.NET',
  sent_timestamp: new Date('2026-03-01T10:00:00Z'), tags: ['t'], custom_args: { a: '1' }, mta: 'mx.test',
};

describe('buildEvent', () => {
  it('fills the general fields in UTC with ISO day of week (Sunday is 7)', () => {
    const event = buildEvent('track.mail.sent', subject, new Date('2026-03-01T23:30:00Z'), 'sent'); // a Sunday
    expect(event).toMatchObject({
      track_type: 'track.mail.sent', timestamp: '2026-03-01T23:30:00.000Z', sent_timestamp: '2026-03-01T10:00:00.000Z',
      hour_of_day: 23, day_of_week: 7, domain: 'example.net', mail_type: 'transactional', mta: 'mx.test',
    });
    expect(buildEvent('track.mail.sent', subject, new Date('2026-03-02T00:00:00Z'), 'sent').day_of_week).toBe(1);
  });

  it('derives the same track_id for the same occurrence, so a retry records it once', () => {
    const a = buildEvent('track.mail.sent', subject, new Date(), 'sent');
    const b = buildEvent('track.mail.sent', subject, new Date(), 'sent');
    expect(a.track_id).toBe(b.track_id);
    expect(a.track_id).not.toBe(buildEvent('track.mail.bounced', subject, new Date(), 'sent').track_id);
  });
});
