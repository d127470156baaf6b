// The relay transport's connections (adapters/relay/pool.ts) against a real SMTP server on
// 127.0.0.1: a refused message fails alone and its connection takes the next one, a connection
// the relay drops is replaced, at most 5 connections, a relay that is down or refuses the login
// is a relay failure, and the errors carry what classifyRelayFailure reads.
import type { AddressInfo, Socket } from 'node:net';
import { SMTPServer, type SMTPServerOptions, type SMTPServerSession } from 'smtp-server';
import type { Stream } from '../../adapters/relay/routes';
import { classifyRelayFailure, createRelayTransport, type RelayMessage, type RelaySender } from '../../adapters/relay/transport';

interface TestRelay {
  url: string;
  /** Per message received: its recipient and the SMTP session (connection) it came over. */
  received: Array<{ to: string; session: string }>;
  connections: number;
  mostOpenAtOnce: number;
  /** Ends every client connection from the relay's side. */
  dropAll(): void;
  close(): Promise<void>;
}

type Hooks = Pick<SMTPServerOptions, 'onMailFrom' | 'onRcptTo' | 'onAuth'> & {
  refuseData?: (to: string) => Error | undefined;
  delayMs?: number;
  /** The connection is dropped when the client sends RSET. */
  dropOnReset?: boolean;
};

async function startRelay(hooks: Hooks = {}): Promise<TestRelay> {
  let open = 0;
  const relay = { received: [], connections: 0, mostOpenAtOnce: 0 } as unknown as TestRelay;
  const server = new SMTPServer({
    authOptional: true,
    allowInsecureAuth: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onConnect(_session, callback) {
      relay.connections += 1;
      open += 1;
      relay.mostOpenAtOnce = Math.max(relay.mostOpenAtOnce, open);
      callback();
    },
    onClose() { open -= 1; },
    onMailFrom: hooks.onMailFrom,
    onRcptTo: hooks.onRcptTo,
    onAuth: hooks.onAuth,
    onData(stream, session, callback) {
      stream.resume();
      stream.on('end', () => {
        const to = session.envelope.rcptTo[0].address;
        const refusal = hooks.refuseData?.(to);
        if (!refusal) relay.received.push({ to, session: session.id });
        setTimeout(() => callback(refusal ?? null), hooks.delayMs ?? 0);
      });
    },
  });
  server.on('error', () => undefined);
  if (hooks.dropOnReset) {
    server.server.on('connection', (socket: Socket) => socket.on('data', (chunk: Buffer) => chunk.includes('RSET\r\n') && socket.destroy()));
  }
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const clients = (server as unknown as { connections: Set<{ _socket: Socket }> }).connections;
  relay.url = `smtp://127.0.0.1:${(server.server.address() as AddressInfo).port}`;
  relay.dropAll = () => clients.forEach((client) => client._socket.destroy());
  relay.close = () => new Promise<void>((resolve) => server.close(() => resolve()));
  return relay;
}

const refusal = (code: number, text: string) => Object.assign(new Error(text), { responseCode: code });
/** A campaign's message by default: a transactional one goes ahead of it at the relay. */
const message = (to: string, stream: Stream = 'campaign'): RelayMessage => ({
  envelope: { from: 'bounce@example.com', to: [to] }, raw: Buffer.from(`To: ${to}\r\nSubject: hi\r\n\r\nhello\r\n`),
  route: { stream, account: 'acme', sender: 'shop@example.com', recipient: to },
});
const failureOf = (promise: Promise<unknown>) => promise.then(() => { throw new Error('expected a failure'); }, (error: Error) => error);
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const opened: Array<{ relay?: TestRelay; transport: RelaySender }> = [];
afterEach(async () => {
  for (const { relay, transport } of opened.splice(0)) {
    await transport.close();
    await relay?.close();
  }
});
async function relayWith(hooks: Hooks = {}) {
  const relay = await startRelay(hooks);
  const transport = createRelayTransport(relay.url);
  opened.push({ relay, transport });
  return { relay, transport };
}

it.each([
  ['a recipient refused (550)', 'RCPT TO', 'refused', { onRcptTo: (a, _s, cb) => cb(a.address === 'bad@example.net' ? refusal(550, '5.1.1 No such user') : null) } as Hooks],
  ['a recipient deferred (450)', 'RCPT TO', 'deferred', { onRcptTo: (a, _s, cb) => cb(a.address === 'bad@example.net' ? refusal(450, '4.2.2 Mailbox full') : null) } as Hooks],
  ['a message refused after its data (554)', 'DATA', 'refused', { refuseData: (to) => (to === 'bad@example.net' ? refusal(554, '5.7.1 Spam') : undefined) } as Hooks],
])('%s fails that message alone; its connection takes the next', async (_what, command, kind, hooks) => {
  const { relay, transport } = await relayWith(hooks);
  await transport.sendMail(message('first@example.net'));
  const error = await failureOf(transport.sendMail(message('bad@example.net')));
  expect(error).toMatchObject({ command });
  expect(classifyRelayFailure(error)).toBe(kind);
  await pause(250); // its connection's RSET answered
  await transport.sendMail(message('next@example.net'));
  expect(relay.received.map((m) => m.to)).toEqual(['first@example.net', 'next@example.net']);
  expect(relay.received[1].session).toBe(relay.received[0].session);
  expect(relay.connections).toBe(1);
});

it('replaces a connection lost while it resets after a refusal', async () => {
  const { relay, transport } = await relayWith({ dropOnReset: true, onRcptTo: (a, _s, cb) => cb(a.address === 'bad@example.net' ? refusal(550, '5.1.1 No such user') : null) });
  for (let i = 0; i < 6; i += 1) { // more than the pool's 5 connections: none may be lost for good
    await expect(transport.sendMail(message('bad@example.net'))).rejects.toMatchObject({ responseCode: 550 });
    await pause(20);
  }
  await transport.sendMail(message('good@example.net'));
  expect(relay.received.map((m) => m.to)).toEqual(['good@example.net']);
  expect(relay.connections).toBe(7);
});

it('sends one message after another over one connection', async () => {
  const { relay, transport } = await relayWith();
  for (let i = 0; i < 5; i += 1) await transport.sendMail(message(`r${i}@example.net`));
  expect(relay.received).toHaveLength(5);
  expect(relay.connections).toBe(1);
});

it('opens another connection when the relay dropped one', async () => {
  const { relay, transport } = await relayWith();
  await transport.sendMail(message('one@example.net'));
  relay.dropAll();
  await pause(100);
  await transport.sendMail(message('two@example.net'));
  expect(relay.received.map((m) => m.to)).toEqual(['one@example.net', 'two@example.net']);
  expect(relay.connections).toBe(2);
});

it('sends a message over another connection when the relay drops its connection before taking it', async () => {
  let dropNext = false;
  const { relay, transport } = await relayWith({
    onMailFrom(_address, session: SMTPServerSession, callback) {
      if (dropNext && session.transaction > 1) {
        dropNext = false;
        relay.dropAll(); // as a relay that closed the connection for being idle, just as the client reused it
        return;
      }
      callback();
    },
  });
  await transport.sendMail(message('one@example.net'));
  dropNext = true;
  await transport.sendMail(message('two@example.net'));
  expect(relay.received.map((m) => m.to)).toEqual(['one@example.net', 'two@example.net']);
  expect(relay.received[0].session).not.toBe(relay.received[1].session);
});

it('keeps to 5 connections however many messages wait, and sends them all', async () => {
  const { relay, transport } = await relayWith({ delayMs: 20 });
  const recipients = Array.from({ length: 40 }, (_, i) => `r${i}@example.net`);
  await Promise.all(recipients.map((to) => transport.sendMail(message(to))));
  expect(relay.received.map((m) => m.to).sort()).toEqual([...recipients].sort());
  expect(relay.connections).toBe(5);
  expect(relay.mostOpenAtOnce).toBe(5);
});

it('sends urgent messages ahead of the others waiting for a connection, each kind in order', async () => {
  const { relay, transport } = await relayWith({ delayMs: 20 });
  // 25 campaign messages on 5 connections; once the first arrived, 3 urgent ones come.
  const campaign = Array.from({ length: 25 }, (_, i) => transport.sendMail(message(`c${i}@example.net`)));
  await campaign[0];
  const arrived = relay.received.length;
  const urgent = ['u0', 'u1', 'u2'].map((name) => transport.sendMail(message(`${name}@example.net`, 'transactional')));
  await Promise.all([...campaign, ...urgent]);
  const order = relay.received.map((m) => m.to);
  const last = Math.max(...['u0', 'u1', 'u2'].map((name) => order.indexOf(`${name}@example.net`)));
  // Behind at most the 5 messages then on the connections, not behind every campaign message waiting.
  expect(last).toBeLessThan(arrived + 5 + 3);
  expect(order.filter((to) => to.startsWith('u'))).toEqual(['u0@example.net', 'u1@example.net', 'u2@example.net']);
  expect(order.filter((to) => to.startsWith('c'))).toEqual(Array.from({ length: 25 }, (_, i) => `c${i}@example.net`));
});

it('fails each waiting message with a relay failure when the relay is down', async () => {
  const relay = await startRelay();
  await relay.close(); // nothing listens on its port any more
  const transport = createRelayTransport(relay.url);
  opened.push({ transport });
  const errors = await Promise.all([1, 2, 3].map((i) => failureOf(transport.sendMail(message(`r${i}@example.net`)))));
  // The first with the connection's error; the others let go at once, the relay being down.
  expect(errors[0]).toMatchObject({ code: 'ESOCKET', command: 'CONN' });
  for (const error of errors) expect(classifyRelayFailure(error)).toBe('relay');
});

it('fails with EAUTH, a relay failure, when the relay refuses the login', async () => {
  const relay = await startRelay({ onAuth: (_auth, _session, callback) => callback(refusal(535, '5.7.8 Authentication credentials invalid')) });
  const transport = createRelayTransport(relay.url.replace('smtp://', 'smtp://relay:secret@'));
  opened.push({ relay, transport });
  const error = await failureOf(transport.sendMail(message('r@example.net')));
  expect(error).toMatchObject({ code: 'EAUTH', responseCode: 535 });
  expect(classifyRelayFailure(error)).toBe('relay');
  expect(relay.received).toEqual([]);
});

it('logs in with the credentials of the URL', async () => {
  const logins: string[] = [];
  const relay = await startRelay({ onAuth: (auth, _session, callback) => { logins.push(`${auth.username}:${auth.password}`); callback(null, { user: auth.username }); } });
  const transport = createRelayTransport(relay.url.replace('smtp://', 'smtp://relay%40x:s%3Acret@'));
  opened.push({ relay, transport });
  await transport.sendMail(message('r@example.net'));
  expect(logins).toEqual(['relay@x:s:cret']);
});

it('once closed, fails what waits and what comes', async () => {
  const { transport } = await relayWith({ delayMs: 50 });
  const sends = Array.from({ length: 10 }, (_, i) => transport.sendMail(message(`r${i}@example.net`)).then(() => 'sent', () => 'failed'));
  await pause(20);
  await transport.close();
  const outcomes = await Promise.all(sends);
  expect(outcomes).toContain('failed'); // the ones still waiting for a connection
  await expect(transport.sendMail(message('late@example.net'))).rejects.toThrow('Connection pool was closed');
});
