// A loopback TCP door to a service of the suite (its store, its Temporal): connections through
// it reach the service, unless `refusing()` says to turn them away; `cut()` ends every connection
// through it; `cutAt()` ends the connection that sends a given request, before the service sees
// it. For tests of clients that lose, or never reach, their server.
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
  close(): Promise<void>;
}

export async function openTcpDoor(host: string, port: number, refusing: () => boolean = () => false): Promise<TcpDoor> {
  const sockets = new Set<net.Socket>();
  let armed: { matches: (data: Buffer) => boolean; done: () => void } | undefined;
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
    client.on('data', (data: Buffer) => {
      if (armed?.matches(data)) {
        const { done } = armed;
        armed = undefined;
        client.destroy();
        upstream.destroy();
        done();
      } else if (!upstream.write(data)) {
        client.pause();
        upstream.once('drain', () => client.resume());
      }
    });
    client.on('end', () => upstream.end());
    upstream.pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const cut = () => { for (const socket of sockets) socket.destroy(); };
  return {
    port: (server.address() as AddressInfo).port,
    cut,
    cutAt: (matches) => new Promise<void>((done) => { armed = { matches, done }; }),
    close: () => new Promise<void>((resolve) => { cut(); server.close(() => resolve()); }),
  };
}
