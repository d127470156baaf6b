// Retention's pure parts: the setting's range, the horizon, which batches keep their counts, and
// the counts a page of pruned messages leaves (by the reports' own rules: a message counts once
// in its per-message figures however many reports it had; the most clicked links are kept).
import { isRetentionDays, retainedSince } from '../../core/retention/policy';
import { addLinks } from '../../core/campaigns/report';
import { isCampaignBatch, isKeptBatch } from '../../core/retention/rollups';
import { rollupsOf, type CountedEvent } from '../../core/retention/rollup-writer';

const event = (batch_id: string, mail_id: string, track_type: string, timestamp: string, sent_timestamp: string, extra: Partial<CountedEvent> = {}): CountedEvent =>
  ({ batch_id, mail_id, track_type, timestamp, sent_timestamp, ...extra });

test('a retention is a whole number of days from 7 to 3650', () => {
  expect([7, 45, 3650].map(isRetentionDays)).toEqual([true, true, true]);
  expect([0, 6, 3651, 1.5, '45', null, undefined, Number.NaN].map(isRetentionDays)).toEqual(Array(8).fill(false));
});

test('messages sent before now less the days are history', () => {
  expect(retainedSince(new Date('2026-03-31T12:00:00Z'), 30).toISOString()).toBe('2026-03-01T12:00:00.000Z');
});

test('campaign and automation batches of the account keep their counts; transactional ones and other accounts\' do not', () => {
  expect(isKeptBatch('acme', 'acme_campaign_12')).toBe(true);
  expect(isKeptBatch('acme', 'acme_automation_3')).toBe(true);
  expect(isKeptBatch('acme', 'acme_transactional_x1')).toBe(false);
  expect(isKeptBatch('acme', 'acme2_campaign_12')).toBe(false);
  expect(isKeptBatch('acme2', 'acme_campaign_12')).toBe(false);
  expect(isCampaignBatch('acme', 'acme_automation_3')).toBe(false);
});

test('a page\'s counts: days by the daily stats\' rules, kept batches by type, a campaign\'s hours and links', () => {
  const sent = '2026-03-01T09:00:00.000Z';
  const rollups = rollupsOf('acme', [
    // A campaign message opened and clicked twice; another refused at sending, then reported twice.
    event('acme_campaign_1', 'm1', 'track.mail.sent', sent, sent),
    event('acme_campaign_1', 'm1', 'track.mail.first_opened', '2026-03-02T10:00:00.000Z', sent),
    event('acme_campaign_1', 'm1', 'track.mail.clicked', '2026-03-02T10:01:00.000Z', sent, { url: 'https://a.example' }),
    event('acme_campaign_1', 'm1', 'track.mail.clicked', '2026-03-02T10:02:00.000Z', sent, { url: 'https://a.example' }),
    event('acme_campaign_1', 'm2', 'track.mail.bounced', sent, sent, { bounce_type: 'hard' }),
    event('acme_campaign_1', 'm2', 'track.mail.bounced', '2026-03-03T00:00:00.000Z', sent, { bounce_type: 'hard' }),
    // A transactional message with a complaint: counted by day, no batch kept.
    event('acme_transactional_t', 'm3', 'track.mail.sent', sent, sent),
    event('acme_transactional_t', 'm3', 'track.mail.unsubscribed', '2026-03-02T08:00:00.000Z', sent, { reason: 'spam_fbl' }),
  ]);
  expect(Object.fromEntries(rollups.days.map((d) => [d.day, d.counts]))).toEqual({
    '2026-03-01': { sent: 3, delivered: 2, opened: 0, clicked: 0, bounced: 1, unsubscribed: 0, complained: 0, dropped: 0 },
    '2026-03-02': { sent: 0, delivered: 0, opened: 1, clicked: 0, bounced: 0, unsubscribed: 0, complained: 1, dropped: 0 },
  });
  expect(rollups.batches).toHaveLength(1);
  const [campaign] = rollups.batches;
  expect(campaign.batchId).toBe('acme_campaign_1');
  expect(campaign.types.bounced).toEqual({ events: 2, messages: 1, hard: 1, complaints: 0, unsent: 1 });
  expect(campaign.types.sent).toMatchObject({ events: 1 });
  expect(campaign.hours).toEqual({ '2026-03-01T09': { sent: 1 }, '2026-03-02T10': { opened: 1, clickedT: 2 } });
  expect(campaign.links).toEqual([{ url: 'https://a.example', clicks: 2, uniqueClicks: 1 }]);
});

test('links of two pages add up by URL, most clicked first', () => {
  expect(addLinks([{ url: 'https://a.example', clicks: 2, uniqueClicks: 1 }], [
    { url: 'https://b.example', clicks: 5, uniqueClicks: 5 }, { url: 'https://a.example', clicks: 1, uniqueClicks: 1 },
  ])).toEqual([{ url: 'https://b.example', clicks: 5, uniqueClicks: 5 }, { url: 'https://a.example', clicks: 3, uniqueClicks: 2 }]);
});
