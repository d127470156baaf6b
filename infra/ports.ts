import net from 'node:net';

/** A TCP port that is free on the given host right now (the OS picks it). */
export function freePort(host = '127.0.0.1'): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, host, () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

/** True when something accepts TCP connections on host:port. */
export function isListening(host: string, port: number, timeoutMs = 1000): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ host, port });
    const done = (ok: boolean) => { socket.destroy(); resolve(ok); };
    socket.setTimeout(timeoutMs, () => done(false));
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
}

/** Polls until host:port accepts connections, or throws after timeoutMs. */
export async function waitForPort(host: string, port: number, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await isListening(host, port)) return;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`${what} did not start listening on ${host}:${port} within ${Math.round(timeoutMs / 1000)} s`);
}
