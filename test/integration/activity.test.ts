// GET /v2/{account}/activity over HTTP: events from real sends (sent, a relay's hard bounce, a
// send to the now suppressed address dropped) plus stored events of every type for volume, read
// back through every filter and view, checked against the store itself; the query's errors;
// cursor paging that neither skips nor repeats while events are inserted; tenant isolation.
import { ObjectId } from 'mongodb';
import type { NewAccount } from '../../core/accounts/accounts';
import { TRACK_TYPES } from '../../core/tracking/events';
import { buildEvent, GENERAL_FIELDS, recordEvents, type EventSubject } from '../../core/tracking/events';
import type { EventDoc } from '../../adapters/store/store';
import { batchEvents } from '../support/events';
import { startTestHerald, type TestHerald } from '../support/herald';
import { callHerald, type Answer, type Json } from '../support/http';

let herald: TestHerald;
let acme: NewAccount;
let other: NewAccount;
/** Every event of acme, as stored, once seeded. */
let stored: EventDoc[];
/** The batch ids of acme's real sends: the first (sent and bounced), the second (dropped). */
let realBatches: string[];
const now = Date.now();
const HOUR = 3_600_000;
const DAY = 24 * HOUR;
/** Ages of the seeded events: each type has one of each. */
const AGES = [10 * DAY, 2 * DAY, 30 * 60_000];

const bearer = (key: string) => ({ authorization: `Bearer ${key}` });
const send = (account: NewAccount, emails: string[]) => callHerald(herald.baseUrl, 'POST', '/v1/mail/send', {
  headers: bearer(account.transactionalKey),
  json: { from: { email: 'shop@example.com' }, subject: 'News', content: { text: 'Hello' }, recipients: emails.map((email) => ({ to: { email } })) },
});
const activity = (query = '', account = acme, key = account.apiKey): Promise<Answer> =>
  callHerald(herald.baseUrl, 'GET', `/v2/${account.account}/activity${query ? `?${query}` : ''}`, { headers: bearer(key) });
const ids = (events: Array<{ track_id?: unknown }>) => events.map((e) => String(e.track_id)).sort();
/** The stored events the filter keeps, newest first (the listing's order). */
const expected = (keep: (e: EventDoc) => boolean) => stored.filter(keep).sort((a, b) => b._id.toHexString().localeCompare(a._id.toHexString()));

function subject(account: string, i: number): EventSubject {
  return {
    account, batch_id: `${account}_transactional_seed${i % 2}`, mail_id: `mail_seed_${account}_${i}`, email: i % 3 === 0 ? 'Reader@Example.com' : `r${i}@example.org`,
    sent_timestamp: new Date(now - 11 * DAY), tags: ['seed'], custom_args: { n: String(i) }, mta: 'herald.test',
  };
}

/** One event of every type at every age, with each type's extra fields where it has them. */
function seedEvents(account: string): EventDoc[] {
  return TRACK_TYPES.flatMap((type, t) => AGES.map((age, a) => {
    const i = t * AGES.length + a;
    const extra: Record<string, unknown> = type.includes('open') || type.includes('click') || type.includes('shared')
      ? { user_agent: 'Mozilla/5.0', os_class: 'Desktop', os: 'Linux', os_version: '6', agent_name: 'Firefox', agent_version: '128', ip: '192.0.2.1', country: 'FR', city: 'Paris' }
      : type === 'track.mail.unsubscribed' ? { reason: 'too_frequent' } : {};
    return buildEvent(type, subject(account, i), new Date(now - age), `seed-${i}`, extra);
  }));
}

beforeAll(async () => {
  herald = await startTestHerald({ rejectRecipients: ['gone@example.org'] });
  [acme, other] = await Promise.all([herald.newAccount(), herald.newAccount()]);
  // Real sends: sent and a hard bounce (the relay refuses gone@), then a send to the now suppressed address: dropped.
  const first = await send(acme, ['Stay@Example.net', 'gone@example.org']);
  await batchEvents(herald.services.store, acme.account, first.headers.get('herald-batch-id')!, 2);
  const second = await send(acme, ['gone@example.org']);
  await batchEvents(herald.services.store, acme.account, second.headers.get('herald-batch-id')!, 1);
  realBatches = [first.headers.get('herald-batch-id')!, second.headers.get('herald-batch-id')!];
  const theirs = await send(other, ['stay@example.net']);
  await batchEvents(herald.services.store, other.account, theirs.headers.get('herald-batch-id')!, 1);
  await recordEvents(herald.services.store, [...seedEvents(acme.account), ...seedEvents(other.account)]);
  stored = await herald.services.store.events.find({ account: acme.account }).toArray();
}, 120_000);
afterAll(() => herald?.stop());

describe('the events of real sends', () => {
  it('lists sent, bounced and dropped as the send engine recorded them, newest first', async () => {
    const [first, second] = await Promise.all(realBatches.map((batch) => activity(`filters.batch_id=${batch}`)));
    expect(first.status).toBe(200);
    expect(first.body.data.map((e: EventDoc) => `${e.track_type} ${e.email}`).sort())
      .toEqual(['track.mail.bounced gone@example.org', 'track.mail.sent Stay@Example.net']);
    expect(second.body.data.map((e: EventDoc) => `${e.track_type} ${e.email}`)).toEqual(['track.mail.dropped gone@example.org']);
    // Newest first: the dropped event (the later send) comes before the first send's bounce.
    const gone = await activity('q=gone@example.org');
    expect(gone.body.data.map((e: EventDoc) => e.track_type)).toEqual(['track.mail.dropped', 'track.mail.bounced']);
  });
});

describe('views', () => {
  it('default: exactly the general fields, in the spec\'s order', async () => {
    const answer = await activity('limit=1000');
    expect(answer.body).toMatchObject({ href: `/v2/${acme.account}/activity`, success: true });
    expect(ids(answer.body.data)).toEqual(ids(stored));
    for (const event of answer.body.data) expect(Object.keys(event)).toEqual([...GENERAL_FIELDS]);
    expect(answer.body.data.map((e: EventDoc) => e.track_id)).toEqual(expected(() => true).map((e) => e.track_id)); // newest first
  });

  it('full: every field of each event, its type\'s own included, nothing internal (no _id, no ledger fields)', async () => {
    const answer = await activity('view=full&limit=1000');
    expect(answer.body.data).toHaveLength(stored.length);
    // The real sends' events are their ledger rows: the ledger's fields (`_ledger`) stay Herald's.
    expect(stored.filter((e) => e._ledger).map((e) => e.track_type).sort()).toEqual(['track.mail.bounced', 'track.mail.dropped', 'track.mail.sent']);
    for (const event of answer.body.data) {
      const { _id, _outcome_of, _ledger, ...fields } = stored.find((e) => e.track_id === event.track_id)!;
      expect(event).toEqual(JSON.parse(JSON.stringify(fields)));
      expect(event).not.toHaveProperty('_id');
      expect(event).not.toHaveProperty('_ledger');
      expect(event).not.toHaveProperty('_outcome_of');
    }
    const opened = answer.body.data.find((e: EventDoc) => e.track_type === 'track.mail.opened');
    expect(opened).toMatchObject({ user_agent: 'Mozilla/5.0', city: 'Paris', country: 'FR' });
    expect(answer.body.data.find((e: EventDoc) => e.track_type === 'track.mail.unsubscribed').reason).toBe('too_frequent');
    expect(answer.body.data.find((e: EventDoc) => e.track_type === 'track.mail.bounced' && e.email === 'gone@example.org'))
      .toMatchObject({ bounce_type: 'hard', message: expect.any(String) });
  });

  it('simple: objects with only email', async () => {
    const answer = await activity('view=simple&limit=1000');
    expect(answer.body.data).toEqual(expected(() => true).map((e) => ({ email: e.email })));
  });
});

describe('filters', () => {
  it('filters.track_type: each type alone, in the dotted and the bracket form; empty means all', async () => {
    for (const type of TRACK_TYPES) {
      const [dotted, bracket] = await Promise.all([activity(`filters.track_type=${type}&limit=1000`), activity(`filters%5Btrack_type%5D=${type}&limit=1000`)]);
      expect([type, ids(dotted.body.data)]).toEqual([type, ids(expected((e) => e.track_type === type))]);
      expect(ids(bracket.body.data)).toEqual(ids(dotted.body.data));
      expect(dotted.body.paging.total).toBe(expected((e) => e.track_type === type).length);
    }
    expect((await activity('filters.track_type=&limit=1000')).body.data).toHaveLength(stored.length);
  });

  it('filters.batch_id', async () => {
    const batch = `${acme.account}_transactional_seed1`;
    const answer = await activity(`filters.batch_id=${batch}&limit=1000`);
    expect(ids(answer.body.data)).toEqual(ids(expected((e) => e.batch_id === batch)));
    expect(answer.body.data.length).toBe(15);
    expect((await activity('filters.batch_id=nope')).body).toMatchObject({ data: [], paging: { next: '', total: 0, results: 0 } });
  });

  it('filters.timestamp.gt: ISO 8601 with Z or an offset (an unencoded + too)', async () => {
    const since = new Date(now - 3 * DAY);
    const keep = ids(expected((e) => e.timestamp > since.toISOString()));
    expect(keep.length).toBe(stored.length - TRACK_TYPES.length); // all but the ten-day-old ones
    const inParis = withOffset(since, 120); // the same instant written +02:00
    for (const gt of [since.toISOString(), encodeURIComponent(inParis), inParis, `filters%5Btimestamp%5D%5Bgt%5D=${since.toISOString()}`]) {
      const query = gt.startsWith('filters') ? `${gt}&limit=1000` : `filters.timestamp.gt=${gt}&limit=1000`;
      expect([gt, ids((await activity(query)).body.data)]).toEqual([gt, keep]);
    }
  });

  it('filters.timestamp.gtrel: now-<n> in seconds, minutes, hours, days, weeks', async () => {
    const cases: Array<[string, number]> = [['now-5d', 5 * DAY], ['now-1h', HOUR], ['now-45m', 45 * 60_000], ['now-600s', 600_000], ['now-3w', 21 * DAY]];
    for (const [gtrel, back] of cases) {
      const answer = await activity(`filters.timestamp.gtrel=${gtrel}&limit=1000`);
      // The real sends are seconds old and the seeded events' ages are far from every boundary.
      expect([gtrel, ids(answer.body.data)]).toEqual([gtrel, ids(expected((e) => Date.parse(e.timestamp) > Date.now() - back))]);
    }
    expect((await activity('filters.timestamp.gtrel=now-45m')).body.data.length).toBe(TRACK_TYPES.length + 3);
  });

  it('q: the address without letter case, or a pattern with *', async () => {
    const exact = await activity('q=READER@example.COM&limit=1000');
    expect(ids(exact.body.data)).toEqual(ids(expected((e) => e.email.toLowerCase() === 'reader@example.com')));
    expect(exact.body.data.length).toBeGreaterThan(0);
    const pattern = await activity(`q=${encodeURIComponent('*@EXAMPLE.org')}&limit=1000`);
    expect(ids(pattern.body.data)).toEqual(ids(expected((e) => e.email.toLowerCase().endsWith('@example.org'))));
    expect((await activity('q=reader@example')).body.data).toEqual([]); // exact, not a prefix
  });

  it('combines filters', async () => {
    const answer = await activity('filters.track_type=track.mail.opened&filters.timestamp.gtrel=now-5d&q=*@example.org&view=simple');
    const keep = expected((e) => e.track_type === 'track.mail.opened' && Date.parse(e.timestamp) > now - 5 * DAY && e.email.endsWith('@example.org'));
    expect(keep.length).toBeGreaterThan(0);
    expect(answer.body.data).toEqual(keep.map((e) => ({ email: e.email })));
  });
});

describe('bad queries: 400 VALIDATION_ERROR naming the parameter', () => {
  const refused = async (query: string, fields: string[]) => {
    const answer = await activity(query);
    expect([query, answer.status, answer.body.error.type]).toEqual([query, 400, 'VALIDATION_ERROR']);
    expect([query, Object.keys(answer.body.error.validationErrors).sort()]).toEqual([query, [...fields].sort()]);
  };

  it('gt and gtrel together', async () => {
    await refused(`filters.timestamp.gt=${new Date(now).toISOString()}&filters.timestamp.gtrel=now-1h`, ['filters.timestamp.gt', 'filters.timestamp.gtrel']);
  });

  it('values out of their range or format', async () => {
    await refused('filters.track_type=track.mail.nope', ['filters.track_type']);
    await refused('filters.track_type=opened', ['filters.track_type']);
    await refused('view=everything', ['view']);
    for (const gt of ['yesterday', '2026-02-30T00:00:00Z', '2026-03-01T08:00:00', '2026-03-01', '2026-03-01T24:00:00Z', 'now-1h']) {
      await refused(`filters.timestamp.gt=${encodeURIComponent(gt)}`, ['filters.timestamp.gt']);
    }
    for (const gtrel of ['now-1y', 'now+1h', '1h', 'now-h', 'now-99999999w', 'NOW-1H']) {
      await refused(`filters.timestamp.gtrel=${encodeURIComponent(gtrel)}`, ['filters.timestamp.gtrel']);
    }
    for (const limit of ['0', '1001', 'abc', '-1', '1.5']) await refused(`limit=${limit}`, ['limit']);
    await refused('filters.mail_id=x', ['filters.mail_id']);
    await refused('filters.track_type=track.mail.sent&filters.track_type=track.mail.opened', ['filters.track_type']);
    await refused(`q=${'a'.repeat(201)}`, ['q']);
    await refused('cursor=bogus', ['cursor']);
    await refused(`cursor=${Buffer.from(`${new ObjectId().toHexString()}.x.abc`).toString('base64url')}`, ['cursor']);
    await refused('view=FULL&limit=0&filters.track_type=x', ['view', 'limit', 'filters.track_type']); // every problem at once
  });
});

describe('limits and paging', () => {
  it('pages of 20 by default, at most 1000; next is an absolute working link carrying the query, empty on the last page', async () => {
    const first = await activity('filters.timestamp.gtrel=now-5d&view=simple');
    const total = expected((e) => Date.parse(e.timestamp) > now - 5 * DAY).length;
    expect(first.body.paging).toEqual({ next: expect.any(String), total, results: 20 });
    const next = new URL(first.body.paging.next);
    expect(next.origin).toBe(herald.baseUrl);
    expect(next.pathname).toBe(`/v2/${acme.account}/activity`);
    expect(next.searchParams.get('view')).toBe('simple');
    expect(next.searchParams.get('limit')).toBe('20');
    expect(next.searchParams.get('filters.timestamp.gtrel')).toBeNull(); // the window is pinned: gtrel became the gt it meant
    expect(Date.parse(next.searchParams.get('filters.timestamp.gt')!)).toBeGreaterThan(now - 5 * DAY - 60_000);
    const second = await fetch(first.body.paging.next, { headers: bearer(acme.apiKey) }).then((r) => r.json() as Promise<Json>);
    expect(second.paging).toEqual({ next: '', total, results: total - 20 });
    expect([...first.body.data, ...second.data]).toEqual(expected((e) => Date.parse(e.timestamp) > now - 5 * DAY).map((e) => ({ email: e.email })));
  });

  it('never repeats nor skips an event that existed when paging began, while events are inserted meanwhile', async () => {
    const pager = await herald.newAccount();
    const seeded = Array.from({ length: 12 }, () => seedEvents(pager.account)).flat()
      .map((event, i) => ({ ...event, _id: new ObjectId(), track_id: `${event.track_id}-${i}` }));
    await recordEvents(herald.services.store, seeded);
    const atStart = await herald.services.store.events.find({ account: pager.account }).toArray();
    expect(atStart).toHaveLength(360);

    let paging = true;
    let inserted = 0;
    let firstDone = false;
    const insertsDuring: number[] = [];
    const inserter = (async () => {
      while (!firstDone && paging) await new Promise((resolve) => setTimeout(resolve, 1));
      for (let round = 0; paging; round += 1) {
        const batch = seedEvents(pager.account).slice(0, 7).map((event, i) => ({ ...event, _id: new ObjectId(), track_id: `new-${round}-${i}` }));
        await recordEvents(herald.services.store, batch);
        inserted += batch.length;
        await new Promise((resolve) => setTimeout(resolve, 2));
      }
    })();

    const collected: string[] = [];
    const totals: number[] = [];
    try {
      const first = await activity('limit=37', pager);
      firstDone = true;
      collected.push(...first.body.data.map((e: EventDoc) => e.track_id));
      totals.push(first.body.paging.total);
      for (let link = first.body.paging.next; link; ) {
        insertsDuring.push(inserted);
        const page = await fetch(link, { headers: bearer(pager.apiKey) }).then((r) => r.json() as Promise<Json>);
        collected.push(...page.data.map((e: EventDoc) => e.track_id));
        totals.push(page.paging.total);
        link = page.paging.next;
      }
    } finally {
      paging = false;
      await inserter;
    }

    // Events were being inserted between the pages, not only before or after them.
    expect(new Set(insertsDuring).size).toBeGreaterThan(2);
    expect(collected).toHaveLength(new Set(collected).size); // nothing repeated
    expect(collected.sort()).toEqual(ids(atStart)); // nothing skipped, nothing added
    expect(totals.length).toBe(Math.ceil(360 / 37));
    expect(new Set(totals)).toEqual(new Set([360])); // the same total on every page
    // A new first page shows what came meanwhile, newest first.
    const fresh = await activity('limit=5', pager);
    expect(fresh.body.paging.total).toBe(360 + inserted);
    expect(fresh.body.data.every((e: EventDoc) => e.track_id.startsWith('new-'))).toBe(true);
  }, 120_000);

  it('limit=1000 takes a whole listing at once', async () => {
    const answer = await activity('limit=1000');
    expect(answer.body.paging).toEqual({ next: '', total: stored.length, results: stored.length });
  });
});

describe('tenant isolation and permissions', () => {
  it('never shows another account\'s events, whatever the filters', async () => {
    const mine = await activity('view=full&limit=1000&q=stay@example.net');
    expect(mine.body.data.map((e: EventDoc) => `${e.account} ${e.email}`)).toEqual([`${acme.account} Stay@Example.net`]);
    const all = await activity('view=full&limit=1000');
    expect(all.body.data.every((e: EventDoc) => e.account === acme.account)).toBe(true);
    const theirBatch = `${other.account}_transactional_seed0`;
    expect((await activity(`filters.batch_id=${theirBatch}`)).body.paging.total).toBe(0);
    // A cursor made in another account's listing pages only through this account's events.
    const theirs = await activity('limit=2', other);
    const cursor = new URL(theirs.body.paging.next).searchParams.get('cursor')!;
    const through = await activity(`limit=1000&cursor=${cursor}`);
    expect(through.body.data.every((e: EventDoc) => e.account === acme.account)).toBe(true);
  });

  it('refuses another account\'s key and a user without activity:list (403)', async () => {
    expect((await activity('', acme, other.apiKey)).status).toBe(403);
    expect((await callHerald(herald.baseUrl, 'GET', `/v2/${acme.account}/activity`)).status).toBe(401);
    const user = await callHerald(herald.baseUrl, 'POST', `/v2/${acme.account}/users`, {
      headers: bearer(acme.apiKey), json: { email: 'lister@example.com', password: 'password12', permissions: ['lists:list'] },
    });
    const key = await callHerald(herald.baseUrl, 'POST', `/v2/${acme.account}/users/${user.body.data.id}/keys`, { headers: bearer(acme.apiKey) });
    const denied = await activity('', acme, key.body.data.key);
    expect(denied.status).toBe(403);
    expect(denied.body.error).toMatchObject({ type: 'FORBIDDEN', userMessage: 'Missing permission activity:list' });
  });
});

/** The instant written in local time at `minutes` east of UTC: 2026-03-01T10:00:00.000+02:00. */
function withOffset(at: Date, minutes: number): string {
  const local = new Date(at.getTime() + minutes * 60_000).toISOString().slice(0, -1);
  const sign = minutes >= 0 ? '+' : '-';
  const abs = Math.abs(minutes);
  return `${local}${sign}${String(Math.floor(abs / 60)).padStart(2, '0')}:${String(abs % 60).padStart(2, '0')}`;
}
