// A loopback TCP door to a service of the suite (its store, its Temporal): connections through
// it reach the service, unless `refusing()` says to turn them away; `cut()` ends every connection
// through it. For tests of clients that lose, or never reach, their server.
import net from 'node:net';
import type { AddressInfo } from 'node:net';

export interface TcpDoor {
  port: number;
  /** Ends every connection through the door (new ones still come through). */
  cut(): void;
  close(): Promise<void>;
}

export async function openTcpDoor(host: string, port: number, refusing: () => boolean = () => false): Promise<TcpDoor> {
  const sockets = new Set<net.Socket>();
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
    client.pipe(upstream).pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const cut = () => { for (const socket of sockets) socket.destroy(); };
  return {
    port: (server.address() as AddressInfo).port,
    cut,
    close: () => new Promise<void>((resolve) => { cut(); server.close(() => resolve()); }),
  };
}
