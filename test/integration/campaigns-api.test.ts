// The campaigns resource of the account API over HTTP against the real stack: create with the
// spec's form bodies (PHP-style arrays) and with JSON, the create-time defaults, the original's
// option keys and include/exclude shapes, references that must exist, PUT (everything in DRAFT,
// tags only after), delete, duplicate, archive, every list option, and other accounts.
// Launch and content: campaigns-launch-api.test.ts.
import type { NewAccount } from '../../core/accounts/accounts';
import { startTestHerald, type TestHerald } from '../support/herald';
import { callHerald, type Json } from '../support/http';

let herald: TestHerald;
let acme: NewAccount;

beforeAll(async () => {
  herald = await startTestHerald();
  acme = await herald.newAccount();
});
afterAll(() => herald?.stop());

const call = (method: string, path: string, options: { key?: string; json?: unknown; form?: string } = {}) =>
  callHerald(herald.baseUrl, method, path, { ...options, headers: { authorization: `Bearer ${options.key ?? acme.apiKey}` } });
const base = (account = acme.account) => `/v2/${account}/campaigns`;
const ISO = expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
const ALL_ON = {
  TRACK_LINKS: '1', ANALYTICS: '1', VIEW_ONLINE: '1', SHARE_NETWORK_1: '1', SHARE_NETWORK_2: '1', SHARE_NETWORK_3: '1', SHARE_FORWARD: '1',
  GOOGLE_ANALYTICS: '1', SHARE_FACEBOOK: '1', SHARE_TWITTER: '1', SHARE_LINKEDIN: '1',
};

async function create(form: string, account = acme): Promise<Json> {
  const answer = await call('POST', base(account.account), { form, key: account.apiKey });
  expect([answer.status, answer.body.error]).toEqual([200, undefined]);
  return answer.body.data;
}
const newList = async (name: string, account = acme) => (await call('POST', `/v2/${account.account}/lists`, { json: { name }, key: account.apiKey })).body.data.id as number;
const newInterest = async (name: string) => (await call('POST', `/v2/${acme.account}/interests`, { json: { name } })).body.data.id as number;

function expectValidationError(answer: { status: number; body: Json }, fields: string[]) {
  expect(answer.status).toBe(400);
  expect(answer.body.error.type).toBe('VALIDATION_ERROR');
  expect(Object.keys(answer.body.error.validationErrors).sort()).toEqual([...fields].sort());
}

describe('create', () => {
  it('gives a campaign with only a name the spec\'s defaults, answering 200 with everything', async () => {
    const answer = await call('POST', base(), { form: 'name=Spring%20sale' });
    expect(answer.status).toBe(200);
    const { id } = answer.body.data;
    expect(answer.headers.get('location')).toBe(`${base()}/${id}`);
    const campaign = {
      id, name: 'Spring sale', description: '', tags: [], type: 'SIMPLE', state: 'DRAFT', recipients: null, launchMode: 'NOW', launchDate: null,
      created: ISO, lastModified: ISO, archived: null, thumbnail: null, metrics: null,
      options: { ...ALL_ON, ANALYTICS_CAMPAIGN_NAME: 'Spring sale', GA_CAMPAIGN_NAME: 'Spring sale' },
      include: { lists: [], interests: [], campaigns: [] }, exclude: { lists: [], interests: [], campaigns: [] }, contents: [],
    };
    expect(answer.body).toEqual({ href: base(), success: true, data: campaign });
    const detail = await call('GET', `${base()}/${id}`);
    expect(detail.body).toEqual({ href: `${base()}/${id}`, success: true, data: { ...campaign, created: answer.body.data.created, lastModified: answer.body.data.lastModified } });
  });

  it('reads the spec\'s form body: tags[], include[lists][], include[interests][], exclude[lists][], options[…]', async () => {
    const [clients, vip, hobby] = [await newList('Clients'), await newList('VIP'), await newInterest('Hobby')];
    const form = `name=Newsletter&description=Monthly&tags[]=news&tags[]=es&tags[]=news&include[lists][]=${clients}&include[interests][]=${hobby}`
      + `&exclude[lists][]=${vip}&options[TRACK_LINKS]=0&options[SHARE_FORWARD]=0`;
    const campaign = await create(form);
    expect(campaign).toMatchObject({
      name: 'Newsletter', description: 'Monthly', tags: ['news', 'es'],
      include: { lists: [clients], interests: [hobby], campaigns: [] }, exclude: { lists: [vip], interests: [], campaigns: [] },
      options: { ...ALL_ON, TRACK_LINKS: '0', SHARE_FORWARD: '0', ANALYTICS_CAMPAIGN_NAME: 'Newsletter' },
    });
  });

  it('reads the same from JSON, with ids as numbers or numeric strings', async () => {
    const list = await newList('JSON list');
    const answer = await call('POST', base(), { json: { name: 'From JSON', tags: ['a'], include: { lists: [list, String(list)] }, options: { VIEW_ONLINE: false, ANALYTICS: 0 } } });
    expect(answer.status).toBe(200);
    expect(answer.body.data).toMatchObject({ tags: ['a'], include: { lists: [list] }, options: { VIEW_ONLINE: '0', ANALYTICS: '0', GOOGLE_ANALYTICS: '0' } });
  });

  it('accepts the original\'s option keys and answers both key sets, mirrored', async () => {
    const campaign = await create('name=Original&options[GOOGLE_ANALYTICS]=0&options[GA_CAMPAIGN_NAME]=promo-2026&options[SHARE_TWITTER]=false'
      + '&options[USE_HEADER]=0&options[USE_FOOTER]=1');
    expect(campaign.options).toEqual({
      ...ALL_ON, ANALYTICS: '0', GOOGLE_ANALYTICS: '0', ANALYTICS_CAMPAIGN_NAME: 'promo-2026', GA_CAMPAIGN_NAME: 'promo-2026',
      SHARE_NETWORK_2: '0', SHARE_TWITTER: '0', USE_HEADER: '0', USE_FOOTER: '1',
    });
    // Sent back as read (both key sets), they change nothing.
    const put = await call('PUT', `${base()}/${campaign.id}`, { json: { options: campaign.options } });
    expect(put.body.data).toEqual({ id: campaign.id });
    // The original key alone changes the neutral one too.
    const changed = await call('PUT', `${base()}/${campaign.id}`, { form: 'options[SHARE_FACEBOOK]=0' });
    expect(changed.body.data.options).toMatchObject({ SHARE_NETWORK_1: '0', SHARE_FACEBOOK: '0', SHARE_TWITTER: '0', USE_HEADER: '0' });
  });

  it('refuses unknown options, values other than 1/0, and an alias contradicting its neutral key', async () => {
    expectValidationError(await call('POST', base(), { form: 'name=x&options[TRACK_LINK]=1' }), ['options.TRACK_LINK']);
    expectValidationError(await call('POST', base(), { form: 'name=x&options[TRACK_LINKS]=yes' }), ['options.TRACK_LINKS']);
    expectValidationError(await call('POST', base(), { json: { name: 'x', options: { ANALYTICS: '1', GOOGLE_ANALYTICS: '0' } } }), ['options.GOOGLE_ANALYTICS']);
  });

  it('sets launchDate from the original\'s `launch` with launchMode SCHEDULED, and refuses it without', async () => {
    const scheduled = await create('name=Later&launchMode=SCHEDULED&launch=2031-05-01T10:00:00-0300');
    expect(scheduled).toMatchObject({ launchMode: 'SCHEDULED', launchDate: '2031-05-01T13:00:00.000Z' });
    const byRecordName = await call('POST', base(), { json: { name: 'Later too', launchMode: 'scheduled', launchDate: '2031-05-01T10:00:00Z' } });
    expect(byRecordName.body.data).toMatchObject({ launchMode: 'SCHEDULED', launchDate: '2031-05-01T10:00:00.000Z' });
    expectValidationError(await call('POST', base(), { form: 'name=x&launch=2031-05-01T10:00:00Z' }), ['launch']);
    expectValidationError(await call('POST', base(), { form: 'name=x&launchMode=SCHEDULED&launch=tomorrow' }), ['launch']);
    // launchMode NOW clears the date.
    const now = await call('PUT', `${base()}/${scheduled.id}`, { form: 'launchMode=NOW' });
    expect(now.body.data).toEqual({ id: scheduled.id, launchMode: 'NOW', launchDate: null });
  });

  it('takes include/exclude campaigns as bare ids (SENT) and as {id, action} objects', async () => {
    const [a, b] = [await create('name=Source%20A'), await create('name=Source%20B')];
    const form = `name=Follow-up&include[campaigns][]=${a.id}&include[campaigns][1][id]=${b.id}&include[campaigns][1][action]=clicked`
      + `&exclude[campaigns][0][id]=${a.id}&exclude[campaigns][0][action]=OPENED`;
    const campaign = await create(form);
    expect(campaign.include.campaigns).toEqual([a.id, { id: b.id, action: 'CLICKED' }]);
    expect(campaign.exclude.campaigns).toEqual([{ id: a.id, action: 'OPENED' }]);
    const json = await call('POST', base(), { json: { name: 'JSON follow-up', include: { campaigns: [{ id: a.id, action: 'SENT' }, { id: b.id, action: 'NO_OPEN' }] } } });
    expect(json.body.data.include.campaigns).toEqual([a.id, { id: b.id, action: 'NO_OPEN' }]);
    expectValidationError(await call('POST', base(), { json: { name: 'x', include: { campaigns: [{ id: a.id, action: 'FORWARDED' }] } } }), ['include.campaigns[0].action']);
  });

  it('refuses lists, interests and campaigns the account does not have, naming each field', async () => {
    const other = await herald.newAccount();
    const theirs = await newList('Theirs', other);
    const answer = await call('POST', base(), { form: `name=x&include[lists][]=${theirs + 500}&include[interests][]=999&exclude[campaigns][]=999999` });
    expectValidationError(answer, ['include.lists[0]', 'include.interests[0]', 'exclude.campaigns[0]']);
    expect(answer.body.error.validationErrors['include.lists[0]']).toMatch(/No list with id/);
    // Another account's list, by its real id (one this account has not), is no list of this account either.
    const mine = Math.max(...(await call('GET', `/v2/${acme.account}/lists?limit=1000`)).body.data.map((l: Json) => l.id as number));
    let foreign = theirs;
    while (foreign <= mine) foreign = await newList('Theirs again', other);
    expectValidationError(await call('POST', base(), { form: `name=x&include[lists][]=${foreign}` }), ['include.lists[0]']);
  });

  it('requires a name and checks the fields\' shapes', async () => {
    expectValidationError(await call('POST', base(), { form: 'description=No%20name' }), ['name']);
    expectValidationError(await call('POST', base(), { json: { name: '   ' } }), ['name']);
    expectValidationError(await call('POST', base(), { json: { name: 'x', type: 'SPLIT', launchMode: 'LATER' } }), ['type', 'launchMode']);
    expectValidationError(await call('POST', base(), { json: { name: 'x', include: { lists: ['abc'] } } }), ['include.lists[0]']);
  });
});

describe('modify and delete', () => {
  it('changes a DRAFT in every part, answering the id and what changed', async () => {
    const list = await newList('For PUT');
    const campaign = await create('name=Draft&tags[]=a');
    const put = await call('PUT', `${base()}/${campaign.id}`, { form: `name=Renamed&description=Now&tags[]=b&include[lists][]=${list}&options[TRACK_LINKS]=0` });
    expect(put.status).toBe(200);
    expect(put.body.data).toEqual({
      id: campaign.id, name: 'Renamed', description: 'Now', tags: ['b'], include: { lists: [list], interests: [], campaigns: [] },
      // The analytics name was the default (the old name): it follows the rename.
      options: { ...ALL_ON, TRACK_LINKS: '0', ANALYTICS_CAMPAIGN_NAME: 'Renamed', GA_CAMPAIGN_NAME: 'Renamed' },
    });
    // include replaces only the keys given; `tags[]=` alone clears the tags (a form cannot send an empty array).
    const cleared = await call('PUT', `${base()}/${campaign.id}`, { form: 'tags[]=&include[interests][]=' });
    expect(cleared.body.data).toEqual({ id: campaign.id, tags: [] });
    const detail = (await call('GET', `${base()}/${campaign.id}`)).body.data;
    expect(detail).toMatchObject({ name: 'Renamed', tags: [], include: { lists: [list] }, options: { TRACK_LINKS: '0' } });
    expect(Date.parse(detail.lastModified)).toBeGreaterThan(Date.parse(campaign.lastModified) - 1);
  });

  it('deletes a DRAFT: 200, then 404', async () => {
    const campaign = await create('name=To%20delete');
    expect((await call('DELETE', `${base()}/${campaign.id}`)).body).toEqual({ href: `${base()}/${campaign.id}`, success: true });
    expect((await call('GET', `${base()}/${campaign.id}`)).status).toBe(404);
    expect((await call('DELETE', `${base()}/${campaign.id}`)).status).toBe(404);
  });

  it('duplicates everything but state and launch into a new DRAFT; a name is required', async () => {
    const list = await newList('Dup list');
    const source = await create(`name=Original%20one&description=d&tags[]=t&include[lists][]=${list}&options[VIEW_ONLINE]=0&launchMode=SCHEDULED&launch=2031-01-01T00:00:00Z`);
    await call('POST', `${base()}/${source.id}/contents`, { form: 'subject=Hello&from=news@example.com&fromName=News' });
    expectValidationError(await call('POST', `${base()}/${source.id}/duplicate`, { form: '' }), ['name']);
    const answer = await call('POST', `${base()}/${source.id}/duplicate`, { form: 'name=Copy' });
    expect(answer.status).toBe(200);
    const copy = answer.body.data;
    expect(copy.id).not.toBe(source.id);
    expect(copy).toMatchObject({
      name: 'Copy', description: 'd', tags: ['t'], state: 'DRAFT', launchMode: 'NOW', launchDate: null, recipients: null, archived: null,
      include: { lists: [list] }, options: { VIEW_ONLINE: '0', ANALYTICS_CAMPAIGN_NAME: 'Copy' },
    });
    expect(copy.contents).toEqual([expect.objectContaining({ subject: 'Hello', from: 'news@example.com', fromName: 'News' })]);
    expect(copy.contents[0].id).not.toBe((await call('GET', `${base()}/${source.id}`)).body.data.contents[0].id);
  });

  it('refuses to archive a DRAFT (SENT or CANCELLED only); unarchive of a campaign not archived changes nothing', async () => {
    const campaign = await create('name=Not%20archivable');
    const answer = await call('POST', `${base()}/${campaign.id}/archive`);
    expect(answer.status).toBe(400);
    expect(answer.body.error).toMatchObject({ type: 'BAD_REQUEST', userMessage: expect.stringMatching(/DRAFT.*SENT or CANCELLED/) });
    const unarchive = await call('POST', `${base()}/${campaign.id}/unarchive`);
    expect(unarchive.body.data).toMatchObject({ id: campaign.id, archived: null, state: 'DRAFT' });
  });
});

describe('listing', () => {
  let lister: NewAccount;
  const ids: Record<string, number> = {};
  const list = async (query: string) => {
    const answer = await call('GET', `${base(lister.account)}${query}`, { key: lister.apiKey });
    expect([answer.status, answer.body.error]).toEqual([200, undefined]);
    return answer.body;
  };
  const names = async (query: string) => (await list(query)).data.map((c: Json) => c.name);

  beforeAll(async () => {
    lister = await herald.newAccount();
    // Created in this order: ids ascend with it.
    for (const [name, form] of [
      ['Bravo', 'tags[]=promo&tags[]=es'], ['alpha', 'tags[]=news'], ['Charlie', ''], ['Delta', 'tags[]=promo'],
      ['Echo', 'launchMode=SCHEDULED&launch=2031-06-01T00:00:00Z'],
    ] as const) ids[name] = (await create(`name=${name}&${form}`, lister)).id;
    // Charlie is cancelled while scheduled far ahead (nothing is ever sent), then archived.
    const root = (id: number) => `${base(lister.account)}/${id}`;
    const content = await call('POST', `${root(ids.Charlie)}/contents`, { key: lister.apiKey, form: 'subject=S&from=a@example.com&fromName=A' });
    await fetch(`${herald.baseUrl}${root(ids.Charlie)}/contents/${content.body.data.id}.html`, {
      method: 'PUT', headers: { authorization: `Bearer ${lister.apiKey}`, 'content-type': 'text/html' }, body: '<p>Hi</p>',
    });
    const listId = await newList('Audience', lister);
    await call('POST', `/v2/${lister.account}/lists/${listId}/contacts`, { key: lister.apiKey, json: { email: 'reader@example.com' } });
    await call('PUT', root(ids.Charlie), { key: lister.apiKey, form: `include[lists][]=${listId}` });
    const launch = await call('POST', `${root(ids.Charlie)}/launch`, { key: lister.apiKey, form: 'launchDate=2031-01-01T00:00:00Z' });
    expect([launch.status, launch.body.error]).toEqual([200, undefined]);
    expect((await call('POST', `${root(ids.Charlie)}/cancel`, { key: lister.apiKey })).body.data.state).toBe('CANCELLED');
    expect((await call('POST', `${root(ids.Charlie)}/archive`, { key: lister.apiKey })).body.data.archived).toEqual(ISO);
  });

  it('sorts by name by default (ascending, code-unit order), not archived ones only, with paging and sort', async () => {
    const body = await list('');
    expect(body.data.map((c: Json) => c.name)).toEqual(['Bravo', 'Delta', 'Echo', 'alpha']);
    expect(body.paging).toEqual({ offset: 0, limit: 20, results: 4, total: 4 });
    expect(body.sort).toEqual({ sortby: 'name', sortdir: 'asc' });
  });

  it('gives the reduced record: no options, include, exclude or contents', async () => {
    const [bravo] = (await list('?q=Bravo')).data;
    expect(bravo).toEqual({
      id: ids.Bravo, name: 'Bravo', description: '', tags: ['promo', 'es'], type: 'SIMPLE', state: 'DRAFT', recipients: null, launchMode: 'NOW',
      launchDate: null, created: ISO, lastModified: ISO, archived: null, thumbnail: null, metrics: null,
    });
  });

  it('sorts by each field, both ways, ties by id', async () => {
    expect(await names('?sortby=name&sortdir=desc')).toEqual(['alpha', 'Echo', 'Delta', 'Bravo']);
    expect(await names('?sortBy=created&sortDir=DESC')).toEqual(['Echo', 'Delta', 'alpha', 'Bravo']);
    expect(await names('?sortby=created')).toEqual(['Bravo', 'alpha', 'Delta', 'Echo']);
    expect(await names('?sortby=launchDate&sortdir=desc&filter[archived]=false')).toEqual(['Echo', 'Bravo', 'alpha', 'Delta']);
    // Every state sorts the same: ties by id.
    expect(await names('?sortby=state')).toEqual(['Bravo', 'alpha', 'Delta', 'Echo']);
    expect(await names('?sortby=stateGroup&sortdir=desc&filter[archived]=true')).toEqual(['Charlie']);
    const all = await call('GET', `${base(lister.account)}?sortby=stateGroup`, { key: lister.apiKey });
    expect(all.body.sort).toEqual({ sortby: 'stateGroup', sortdir: 'asc' });
  });

  it('orders states and state groups over launched and draft campaigns', async () => {
    // Echo scheduled (its launch validated: content and a recipient) to compare with the drafts.
    const root = `${base(lister.account)}/${ids.Echo}`;
    const listId = (await call('GET', `/v2/${lister.account}/lists`, { key: lister.apiKey })).body.data[0].id;
    const content = await call('POST', `${root}/contents`, { key: lister.apiKey, form: 'subject=S&from=a@example.com&fromName=A' });
    await fetch(`${herald.baseUrl}${root}/contents/${content.body.data.id}.html`, {
      method: 'PUT', headers: { authorization: `Bearer ${lister.apiKey}`, 'content-type': 'text/html' }, body: '<p>Hi</p>',
    });
    await call('PUT', root, { key: lister.apiKey, form: `include[lists][]=${listId}` });
    expect((await call('POST', `${root}/launch`, { key: lister.apiKey })).status).toBe(200);
    try {
      expect(await names('?sortby=state')).toEqual(['Bravo', 'alpha', 'Delta', 'Echo']); // DRAFT < SCHEDULED
      expect(await names('?sortby=state&sortdir=desc')).toEqual(['Echo', 'Bravo', 'alpha', 'Delta']);
      expect(await names('?sortby=stateGroup&sortdir=desc')).toEqual(['Echo', 'Bravo', 'alpha', 'Delta']);
      expect(await names('?sortby=stateGroup&limit=2&offset=2')).toEqual(['Delta', 'Echo']);
      expect(await names('?filter[state]=SCHEDULED')).toEqual(['Echo']);
      expect((await list('?filter[state]=SCHEDULED')).data[0]).toMatchObject({ state: 'SCHEDULED', paused: false, launchDate: '2031-06-01T00:00:00.000Z' });
    } finally {
      await call('POST', `${root}/stop`, { key: lister.apiKey });
    }
    expect(await names('?filter[state]=DRAFT')).toEqual(['Bravo', 'Delta', 'Echo', 'alpha']);
  });

  it('filters by state (one or several), tags, archived, and q with * wildcards', async () => {
    expect(await names('?filter[state]=draft')).toEqual(['Bravo', 'Delta', 'Echo', 'alpha']);
    expect(await names('?filter[state]=CANCELLED')).toEqual([]);
    expect(await names('?filter[state]=CANCELLED&filter[archived]=true')).toEqual(['Charlie']);
    expect(await names('?filter[state]=DRAFT,CANCELLED&filter[archived]=1')).toEqual(['Charlie']);
    expect(await names('?filter[state][]=SENT&filter[state][]=DRAFT&q=*a')).toEqual(['Delta', 'alpha']);
    expect(await names('?filter[tags]=promo')).toEqual(['Bravo', 'Delta']);
    expect(await names('?filter[tags]=news,es')).toEqual(['Bravo', 'alpha']);
    expect(await names('?filter[archived]=true')).toEqual(['Charlie']);
    expect((await list('?filter[archived]=true')).data[0]).toMatchObject({ state: 'CANCELLED', archived: ISO });
    expect(await names('?q=BRAVO')).toEqual(['Bravo']);
    expect(await names('?q=*ha*')).toEqual(['alpha']);
    expect(await names('?q=*o')).toEqual(['Bravo', 'Echo']);
  });

  it('pages with offset and limit, the total counting every match', async () => {
    const body = await list('?limit=2&offset=1');
    expect(body.data.map((c: Json) => c.name)).toEqual(['Delta', 'Echo']);
    expect(body.paging).toEqual({ offset: 1, limit: 2, results: 2, total: 4 });
    expect((await list('?offset=10')).paging).toEqual({ offset: 10, limit: 20, results: 0, total: 4 });
  });

  it('refuses unknown sort fields, filters and values, naming each', async () => {
    const answer = await call('GET', `${base(lister.account)}?sortby=lastMailed&filter[state]=DONE&filter[archived]=maybe&filter[owner]=x&limit=0`, { key: lister.apiKey });
    expectValidationError(answer, ['sortby', 'filter[state]', 'filter[archived]', 'filter[owner]', 'limit']);
  });

  it('unarchives: back in the default listing', async () => {
    const answer = await call('POST', `${base(lister.account)}/${ids.Charlie}/unarchive`, { key: lister.apiKey });
    expect(answer.body.data).toMatchObject({ id: ids.Charlie, archived: null, state: 'CANCELLED' });
    expect(await names('?filter[state]=CANCELLED')).toEqual(['Charlie']);
    expect(await names('?filter[archived]=true')).toEqual([]);
  });
});

describe('other accounts', () => {
  it('never shows or changes another account\'s campaign: 404 by id, 403 on its path', async () => {
    const other = await herald.newAccount();
    const mine = (await call('GET', `${base()}?limit=1000`)).body.paging.total as number;
    let theirs: Json;
    for (let i = 0; i <= mine + 1; i += 1) theirs = await create(`name=Theirs%20${i}`, other);
    for (const [method, path] of [['GET', ''], ['PUT', ''], ['DELETE', ''], ['POST', '/duplicate'], ['GET', '/validate'], ['POST', '/launch'], ['POST', '/contents']]) {
      const answer = await call(method, `${base()}/${theirs.id}${path}`, method === 'GET' ? {} : { form: 'name=x' });
      expect([method, path, answer.status, answer.body.error.type]).toEqual([method, path, 404, 'NOT_FOUND']);
    }
    expect((await call('GET', base(other.account))).status).toBe(403);
    expect((await call('GET', `${base(other.account)}/${theirs.id}`, { key: other.apiKey })).body.data.name).toBe(theirs.name);
  });
});
