// A loopback TCP door to a service of the suite (its store, its Temporal): connections through
// it reach the service, unless `refusing()` says to turn them away; `cut()` ends every connection
// through it; `cutAt()` ends the connection that sends a given request, before the service sees
// it; `cutReplyTo()` ends it after the service has acted on the request, before its answer comes
// back. For tests of clients that lose, or never reach, their server.
import net from 'node:net';
import type { AddressInfo } from 'node:net';

export interface TcpDoor {
  port: number;
  /** Ends every connection through the door (new ones still come through). */
  cut(): void;
  /**
   * Ends the connection of the next client data that `matches`, without passing that data on (so
   * the service never sees the request); later data passes. Resolves once it has.
   */
  cutAt(matches: (data: Buffer) => boolean): Promise<void>;
  /**
   * Passes the next client data that `matches` on, then ends its connection when the service's
   * answer comes back, without passing the answer on (the service did it; the client cannot know).
   * Resolves once it has.
   */
  cutReplyTo(matches: (data: Buffer) => boolean): Promise<void>;
  close(): Promise<void>;
}

interface Armed { matches: (data: Buffer) => boolean; done: () => void; cut: 'request' | 'reply' }

export async function openTcpDoor(host: string, port: number, refusing: () => boolean = () => false): Promise<TcpDoor> {
  const sockets = new Set<net.Socket>();
  let armed: Armed | undefined;
  const server = net.createServer((client) => {
    if (refusing()) {
      client.destroy();
      return;
    }
    const upstream = net.connect(port, host);
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
      socket.on('error', () => undefined);
    }
    /** Set once this connection carried the request whose answer is to be lost. */
    let replyLost: (() => void) | undefined;
    const end = (done: () => void) => {
      client.destroy();
      upstream.destroy();
      done();
    };
    /** `from`'s data to `to`, pausing `from` while `to` is full. */
    const forward = (from: net.Socket, to: net.Socket, data: Buffer) => {
      if (!to.write(data)) {
        from.pause();
        to.once('drain', () => from.resume());
      }
    };
    client.on('data', (data: Buffer) => {
      if (!armed?.matches(data)) {
        forward(client, upstream, data);
        return;
      }
      const { done, cut } = armed;
      armed = undefined;
      if (cut === 'request') end(done);
      else {
        replyLost = done;
        forward(client, upstream, data);
      }
    });
    upstream.on('data', (data: Buffer) => {
      if (replyLost) end(replyLost);
      else forward(upstream, client, data);
    });
    client.on('end', () => upstream.end());
    upstream.on('end', () => client.end());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const cut = () => { for (const socket of sockets) socket.destroy(); };
  const arm = (matches: Armed['matches'], kind: Armed['cut']) => new Promise<void>((done) => { armed = { matches, done, cut: kind }; });
  return {
    port: (server.address() as AddressInfo).port,
    cut,
    cutAt: (matches) => arm(matches, 'request'),
    cutReplyTo: (matches) => arm(matches, 'reply'),
    close: () => new Promise<void>((resolve) => { cut(); server.close(() => resolve()); }),
  };
}
