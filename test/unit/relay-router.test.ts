// Several relays as one sender (adapters/relay/router.ts), against real SMTP servers: a message
// goes to the first relay whose conditions match; a relay that refuses connections, answers 421,
// times out (its timeouts shortened here) or drops its session is marked down and its traffic moves to the next one that may take it; it
// comes back once it answers; a refusal about one message stays that message's; a rate limit holds.
import net from 'node:net';
import { simpleParser } from 'mailparser';
import { createRelayRouter, isPostmark, withPostmarkMetadata, type RelayRouter, type RelayTimeouts } from '../../adapters/relay/router';
import type { RelayDefinition, Stream } from '../../adapters/relay/routes';
import { classifyRelayFailure, type RelayMessage } from '../../adapters/relay/transport';
import { startSmtpSink, type SinkOptions } from '../support/smtp-sink';

type Sink = Awaited<ReturnType<typeof startSmtpSink>>;
const sinks: Sink[] = [];
const routers: RelayRouter[] = [];
afterEach(async () => {
  for (const router of routers.splice(0)) router.close();
  await Promise.all(sinks.splice(0).map((box) => box.kill()));
});

async function sink(options: SinkOptions = {}): Promise<Sink> {
  const made = await startSmtpSink(options);
  sinks.push(made);
  return made;
}

function router(relays: RelayDefinition[], downMs = 60_000, timeouts?: RelayTimeouts) {
  const health: string[] = [];
  const made = createRelayRouter(relays, { health: (relay, up) => health.push(`${relay} ${up ? 'up' : 'down'}`) }, { downTimes: { firstDownMs: downMs, maxDownMs: downMs }, timeouts });
  routers.push(made);
  return { router: made, health };
}

const message = (recipient: string, route: Partial<RelayMessage['route']> = {}): RelayMessage => ({
  envelope: { from: 'bounce@bounces.example.com', to: [recipient] },
  raw: Buffer.from(`From: shop@example.com\r\nTo: ${recipient}\r\nSubject: hi\r\n\r\nhello\r\n`),
  route: { stream: 'transactional', account: 'acme', sender: 'shop@example.com', recipient, ...route },
});
const to = (box: Sink) => box.received.map((mail) => mail.rcptTo[0]);

it('sends each message through the first relay whose conditions all match, in file order', async () => {
  const [gmail, bulk, acme, main] = await Promise.all([sink(), sink(), sink(), sink()]);
  const { router: relays } = router([
    { name: 'gmail', url: gmail.url, recipientDomains: ['gmail.com', 'googlemail.com'] },
    { name: 'bulk', url: bulk.url, streams: ['campaign'] },
    { name: 'acme-news', url: acme.url, accounts: ['acme'], senderDomains: ['news.example.com'] },
    { name: 'main', url: main.url },
  ]);
  const sends: Array<[string, Partial<RelayMessage['route']>]> = [
    ['a@gmail.com', { stream: 'campaign' }], // gmail first in the file
    ['b@example.net', { stream: 'campaign' }],
    ['c@example.net', { stream: 'automation' as Stream, sender: 'hello@news.example.com' }],
    ['d@example.net', { account: 'other', sender: 'hello@news.example.com' }], // acme-news is acme's only
    ['e@example.net', { stream: 'system' }],
  ];
  const answers = [];
  for (const [recipient, route] of sends) answers.push(await relays.sendMail(message(recipient, route)));
  expect(answers.map((answer) => answer.relay)).toEqual(['gmail', 'bulk', 'acme-news', 'main', 'main']);
  expect([to(gmail), to(bulk), to(acme), to(main)]).toEqual([['a@gmail.com'], ['b@example.net'], ['c@example.net'], ['d@example.net', 'e@example.net']]);
});

it('refuses a message no relay takes, as the relay\'s trouble, naming why', async () => {
  const only = await sink();
  const { router: relays } = router([{ name: 'campaigns', url: only.url, streams: ['campaign'] }]);
  const error = await relays.sendMail(message('a@example.net')).catch((caught: unknown) => caught);
  expect(error).toMatchObject({ code: 'ENORELAY', message: expect.stringContaining('no relay of the relays file takes this message') });
  expect(classifyRelayFailure(error)).toBe('relay');
});

it.each([
  ['crashed and refuses connections', async (box: Sink) => { await box.kill(); }],
  ['answers 421', async (box: Sink, options: SinkOptions) => { options.answer421 = true; }],
  ['drops its sessions mid-page', async (box: Sink, options: SinkOptions) => { options.dropAfter = box.received.length; }],
])('moves the traffic of a relay that %s to the next one, each message once', async (_what, breakIt) => {
  const options: SinkOptions = {};
  const [first, second] = await Promise.all([sink(options), sink()]);
  const { router: relays, health } = router([{ name: 'first', url: first.url }, { name: 'second', url: second.url }]);
  await relays.sendMail(message('before@example.net'));
  await breakIt(first, options);
  const recipients = Array.from({ length: 30 }, (_, i) => `r${i}@example.net`);
  const answers = await Promise.all(recipients.map((recipient) => relays.sendMail(message(recipient))));
  expect(new Set(answers.map((answer) => answer.relay))).toEqual(new Set(['second']));
  expect(to(first)).toEqual(['before@example.net']);
  expect([...to(second)].sort()).toEqual([...recipients].sort()); // each once: the first relay took none of them
  expect(health).toEqual(['first down']);
  expect(relays.states()).toEqual([{ name: 'first', up: false }, { name: 'second', up: true }]);
});

/** A relay that takes the connection and then says nothing: not its greeting, or (`greets`) nothing after EHLO. */
async function silentRelay(greets: boolean): Promise<string> {
  const server = net.createServer((socket) => {
    silentSockets.push(socket);
    socket.on('error', () => undefined);
    if (!greets) return;
    socket.write('220 relay.example ESMTP\r\n');
    socket.once('data', () => socket.write('250 relay.example\r\n')); // EHLO; MAIL FROM is never answered
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  silentServers.push(server);
  return `smtp://127.0.0.1:${(server.address() as net.AddressInfo).port}`;
}
const silentServers: net.Server[] = [];
const silentSockets: net.Socket[] = [];
afterEach(async () => {
  for (const socket of silentSockets.splice(0)) socket.destroy();
  await Promise.all(silentServers.splice(0).map((server) => new Promise((resolve) => server.close(resolve))));
});

it.each([
  ['never greets', false],
  ['stops answering mid-session', true],
])('moves the traffic of a relay that times out (%s) to the next one, each message once', async (_what, greets) => {
  const second = await sink();
  const { router: relays, health } = router([{ name: 'first', url: await silentRelay(greets) }, { name: 'second', url: second.url }], 60_000, { connectionMs: 2000, greetingMs: 2000, socketMs: 2000 });
  const recipients = Array.from({ length: 10 }, (_, i) => `t${i}@example.net`);
  const answers = await Promise.all(recipients.map((recipient) => relays.sendMail(message(recipient))));
  expect(new Set(answers.map((answer) => answer.relay))).toEqual(new Set(['second']));
  expect([...to(second)].sort()).toEqual([...recipients].sort());
  expect(health).toEqual(['first down']);
});

it('tries a relay that was down again after its wait, and it is up once it takes a message', async () => {
  const options: SinkOptions = { answer421: true };
  const [first, second] = await Promise.all([sink(options), sink()]);
  const { router: relays, health } = router([{ name: 'first', url: first.url }, { name: 'second', url: second.url }], 50);
  expect((await relays.sendMail(message('a@example.net'))).relay).toBe('second');
  options.answer421 = false;
  // Within its wait the first relay is not tried; after it, the next message is its probe.
  let answer;
  do answer = await relays.sendMail(message('b@example.net')); while (answer.relay !== 'first');
  expect(health).toEqual(['first down', 'first up']);
  expect((await relays.sendMail(message('c@example.net'))).relay).toBe('first');
  expect(to(first)).toEqual(['b@example.net', 'c@example.net']);
});

it('keeps a refusal about one message that message\'s: no other relay gets it, the relay stays up', async () => {
  const [first, second] = await Promise.all([sink({ rejectRecipients: ['gone@example.net'], deferRecipients: ['full@example.net'] }), sink()]);
  const { router: relays, health } = router([{ name: 'first', url: first.url }, { name: 'second', url: second.url }]);
  const refused = await relays.sendMail(message('gone@example.net')).catch((caught: unknown) => caught);
  const deferred = await relays.sendMail(message('full@example.net')).catch((caught: unknown) => caught);
  expect([classifyRelayFailure(refused), classifyRelayFailure(deferred)]).toEqual(['refused', 'deferred']);
  expect(refused).toMatchObject({ relay: 'first' });
  expect(second.received).toEqual([]);
  expect(health).toEqual([]);
});

it('fails with the relay\'s trouble when every relay that matches is down, and still asks the first each time: back as soon as it answers', async () => {
  const options: SinkOptions = { answer421: true };
  const [first, second] = await Promise.all([sink(options), sink({ answer421: true })]);
  const { router: relays, health } = router([{ name: 'first', url: first.url }, { name: 'second', url: second.url }]); // down for a minute each
  const error = await relays.sendMail(message('a@example.net')).catch((caught: unknown) => caught);
  expect(classifyRelayFailure(error)).toBe('relay');
  expect(health).toEqual(['first down', 'second down']);
  const later = await relays.sendMail(message('b@example.net')).catch((caught: unknown) => caught);
  expect(later).toMatchObject({ responseCode: 421 }); // the first relay's own answer, asked although down
  options.answer421 = false;
  expect((await relays.sendMail(message('c@example.net'))).relay).toBe('first'); // within its minute down
  expect(health).toEqual(['first down', 'second down', 'first up']);
});

it('holds a relay to its rate: sixty messages at 40 a second take their second and a half', async () => {
  const box = await sink();
  const { router: relays } = router([{ name: 'slow', url: box.url, ratePerSecond: 40 }]);
  const startedAt = performance.now();
  await Promise.all(Array.from({ length: 60 }, (_, i) => relays.sendMail(message(`r${i}@example.net`))));
  // A slower machine only makes it longer: (60 - 2 of burst) / 40 s at least. The spacing within any
  // second is the limiter's own, tested on a clock of its own (test/unit/rate-limit.test.ts).
  expect(performance.now() - startedAt).toBeGreaterThanOrEqual(1450);
  expect(box.received).toHaveLength(60);
});

it('gives Postmark the mail_id as metadata, a header its bounce and complaint webhooks return (core/bounces/postmark.ts)', async () => {
  expect([isPostmark('smtp://key:key@smtp.postmarkapp.com:587'), isPostmark('smtps://smtp-broadcasts.postmarkapp.com:465'), isPostmark('smtp://postmarkapp.com.evil.example:25')])
    .toEqual([true, true, false]);
  const raw = message('a@example.net').raw;
  const withMetadata = withPostmarkMetadata('mail_abc-123_X', raw);
  expect(withMetadata.toString()).toBe(`X-PM-Metadata-herald-mail-id: mail_abc-123_X\r\n${raw.toString()}`);
  expect((await simpleParser(withMetadata)).headers.get('x-pm-metadata-herald-mail-id')).toBe('mail_abc-123_X');
});

it.each([
  ['refuses Herald\'s login (AUTH)', async () => { const box = await sink({ refuseAuth: true }); return box.url.replace('smtp://', 'smtp://user:wrong@'); }],
  ['fails TLS (smtps:// to a server that speaks no TLS)', async () => (await sink()).url.replace('smtp://', 'smtps://')],
])('moves the traffic of a relay that %s to the next one', async (_what, firstUrl) => {
  const second = await sink();
  const { router: relays, health } = router([{ name: 'first', url: await firstUrl() }, { name: 'second', url: second.url }]);
  const answers = await Promise.all(['a', 'b', 'c'].map((name) => relays.sendMail(message(`${name}@example.net`))));
  expect(answers.map((answer) => answer.relay)).toEqual(['second', 'second', 'second']);
  expect([...to(second)].sort()).toEqual(['a@example.net', 'b@example.net', 'c@example.net']);
  expect(health).toEqual(['first down']);
});
