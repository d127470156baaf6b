// Event shaping of tracking hits (core/tracking/*): device fields from the User-Agent, mail-proxy
// detection, the place of an address (the real DB-IP database), and the extra fields of each type.
import { placeOf } from '../../core/tracking/geoip';
import { CLIENT_KEYS, clickFields, clientFields, firstOpenFields, openFields, secondsFromSent, shareFields, MAX_USER_AGENT } from '../../core/tracking/hit-fields';
import { mailProxyOf } from '../../core/tracking/mail-proxy';
import { sharePage } from '../../core/tracking/share-networks';
import { deviceOf } from '../../core/tracking/user-agent';

const IPHONE = 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148';
const IPAD = 'Mozilla/5.0 (iPad; CPU OS 16_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148';
const CHROME = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.6367.60 Safari/537.36';
const ANDROID = 'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Mobile Safari/537.36';
const OUTLOOK = 'Microsoft Office/16.0 (Windows NT 10.0; Microsoft Outlook 16.0.17328; Pro)';
const THUNDERBIRD = 'Mozilla/5.0 (X11; Linux x86_64; rv:115.0) Gecko/20100101 Thunderbird/115.3.1';
const GMAIL_PROXY = 'Mozilla/5.0 (Windows NT 5.1; rv:11.0) Gecko Firefox/11.0 (via ggpht.com GoogleImageProxy)';
const YAHOO_PROXY = 'YahooMailProxy; https://help.yahoo.com/kb/yahoo-mail-proxy-SLN28749.html';

describe('deviceOf', () => {
  it('names the system, its class and the client, with the major version beside the name', () => {
    expect(deviceOf(CHROME)).toEqual({
      os_class: 'Desktop', os: 'Windows', os_version: '10', agent_name: 'Chrome', agent_version: '124.0.6367.60', agent_name_version: 'Chrome 124',
    });
    expect(deviceOf(IPHONE)).toMatchObject({ os_class: 'Mobile', os: 'iOS', os_version: '17.4' });
    expect(deviceOf(IPAD)).toMatchObject({ os_class: 'Tablet', os: 'iOS' });
    expect(deviceOf(ANDROID)).toMatchObject({ os_class: 'Mobile', os: 'Android', os_version: '14', agent_name: 'Chrome' });
  });

  it('knows desktop mail clients the parser does not name itself', () => {
    expect(deviceOf(OUTLOOK)).toMatchObject({ os_class: 'Desktop', os: 'Windows', agent_name: 'Outlook', agent_version: '16.0.17328', agent_name_version: 'Outlook 16' });
    expect(deviceOf(THUNDERBIRD)).toMatchObject({ os_class: 'Desktop', os: 'Linux', agent_name: 'Thunderbird', agent_name_version: 'Thunderbird 115' });
  });

  it('gives empty strings and Unknown for what it cannot tell, never absent keys', () => {
    expect(deviceOf('')).toEqual({ os_class: 'Unknown', os: '', os_version: '', agent_name: '', agent_version: '', agent_name_version: '' });
    expect(deviceOf('curl/8.5.0')).toMatchObject({ os_class: 'Unknown', os: '' });
  });

  it('answers the same object for the same string (cached)', () => {
    expect(deviceOf(CHROME)).toBe(deviceOf(CHROME));
  });
});

describe('mailProxyOf', () => {
  it('recognises Gmail, Yahoo and Apple Mail Privacy Protection', () => {
    expect(mailProxyOf(GMAIL_PROXY, '66.249.84.1')).toBe('gmail');
    expect(mailProxyOf(YAHOO_PROXY, '98.137.1.1')).toBe('yahoo');
    expect(mailProxyOf('Mozilla/5.0', '104.28.1.1')).toBe('apple'); // Apple's bare User-Agent
    expect(mailProxyOf(IPHONE, '17.58.1.2')).toBe('apple'); // Apple's network
    expect(mailProxyOf(IPHONE, '::ffff:17.58.1.2')).toBe('apple'); // the same, as a dual-stack socket reports it
  });

  it('takes a reader\'s own client for what it is', () => {
    expect(mailProxyOf(IPHONE, '81.2.69.160')).toBeUndefined();
    expect(mailProxyOf(CHROME, '2001:db8::1')).toBeUndefined();
    expect(mailProxyOf('Mozilla/5.0 (X11)', '18.0.0.1')).toBeUndefined();
    expect(mailProxyOf('', '127.0.0.1')).toBeUndefined();
  });
});

describe('placeOf (DB-IP City Lite)', () => {
  it('finds the country code and city of IPv4 and IPv6 addresses', async () => {
    expect(await placeOf('81.2.69.160')).toEqual({ country: 'GB', city: 'London' });
    expect(await placeOf('::ffff:81.2.69.160')).toEqual({ country: 'GB', city: 'London' });
    const v6 = await placeOf('2001:4860:4860::8888');
    expect(v6.country).toMatch(/^[A-Z]{2}$/);
  }, 30_000);

  it('gives empty strings for private, loopback and malformed addresses', async () => {
    for (const ip of ['127.0.0.1', '10.1.2.3', '::1', 'not an address', '']) expect(await placeOf(ip)).toEqual({ country: '', city: '' });
  }, 30_000);
});

describe('the extra fields of each event type', () => {
  const client = clientFields(CHROME, '::ffff:81.2.69.160', deviceOf(CHROME), { country: 'GB', city: 'London' });

  it('client fields: every key in the spec\'s order, the address without its IPv6 mapping', () => {
    expect(Object.keys(client)).toEqual([...CLIENT_KEYS]);
    expect(client).toMatchObject({ user_agent: CHROME, ip: '81.2.69.160', country: 'GB', city: 'London', agent_name_version: 'Chrome 124' });
    expect(clientFields('x'.repeat(5000), '', deviceOf(''), { country: '', city: '' }).user_agent).toHaveLength(MAX_USER_AGENT);
  });

  it('opens: the client fields, or none through a proxy; first_opened adds seconds_from_sent', () => {
    const at = new Date('2026-03-01T10:01:05.900Z');
    expect(openFields(client)).toEqual(client);
    expect(openFields(undefined)).toEqual({});
    expect(firstOpenFields(client, '2026-03-01T10:00:00.000Z', at)).toEqual({ ...client, seconds_from_sent: 65 });
    expect(firstOpenFields(undefined, '2026-03-01T10:00:00.000Z', at)).toEqual({ seconds_from_sent: 65 });
    expect(secondsFromSent('2026-03-01T10:00:02.000Z', at)).toBe(63);
    expect(secondsFromSent('2026-03-01T10:02:00.000Z', at)).toBe(0); // another host's clock a little ahead
  });

  it('clicks: the client fields, url, link_id as a string, interests and contact_id when there are some', () => {
    const link = { linkId: 3, target: 'https://shop.example/a?utm_source=x', url: 'https://shop.example/a', interests: ['shoes'] };
    expect(clickFields(client, link, '276889')).toEqual({ ...client, url: 'https://shop.example/a', link_id: '3', interests: ['shoes'], contact_id: '276889' });
    expect(clickFields(client, { ...link, interests: [] }, undefined)).toEqual({ ...client, url: 'https://shop.example/a', link_id: '3' });
  });

  it('shares: the client fields and shared_on, to the network\'s share page of the online version', () => {
    expect(shareFields(client, 'linkedin')).toEqual({ ...client, shared_on: 'linkedin' });
    expect(sharePage('facebook', 'https://h.example/t/v/a.b')).toBe('https://www.facebook.com/sharer/sharer.php?u=https%3A%2F%2Fh.example%2Ft%2Fv%2Fa.b');
  });
});
