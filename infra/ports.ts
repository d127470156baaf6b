import net from 'node:net';

/**
 * Ports this process will listen on itself (npm start's API and SMTP ports): never handed out to
 * an embedded service. A port another process just let go is free to the OS, so after a crash the
 * next start could give it to the store, Temporal or the mail sink and then fail to listen on it.
 */
const reserved = new Set<number>();

export function reservePorts(ports: number[]): void {
  for (const port of ports) if (port > 0) reserved.add(port);
}

/** A TCP port that is free on the given host right now (the OS picks it), never a reserved one. */
export function freePort(host = '127.0.0.1'): Promise<number> {
  return pickUnreserved(() => osFreePort(host), reserved);
}

/**
 * Starts a server on ports found free, and again (on ports found afresh by `start`) when another
 * process took one between finding it free and the server binding it: a second test run, a
 * client's ephemeral port. `portTaken` recognises that failure; any other is thrown at once.
 */
export async function startOnFreePorts<T>(start: () => Promise<T>, portTaken: (error: unknown) => boolean, attempts = 3): Promise<T> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await start();
    } catch (error) {
      if (attempt >= attempts || !portTaken(error)) throw error;
    }
  }
}

/** Asks `pick` again while it gives a reserved port. */
export async function pickUnreserved(pick: () => Promise<number>, taken: ReadonlySet<number>): Promise<number> {
  for (;;) {
    const port = await pick();
    if (!taken.has(port)) return port;
  }
}

function osFreePort(host: string): Promise<number> {
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
