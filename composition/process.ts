// What every entry point does with its process: stop cleanly on a signal, listen with a readable error.
/** Runs `stop` once on the first SIGINT or SIGTERM; a second signal exits at once. */
export function onShutdownSignal(stop: (signal: string) => Promise<void>): void {
  let stopping = false;
  const handle = (signal: string) => {
    if (stopping) process.exit(130);
    stopping = true;
    stop(signal).then(
      () => process.exit(0),
      (error) => {
        console.error('shutdown failed:', error);
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', handle);
  process.on('SIGTERM', handle);
}

/** Resolves once the server listens; rejects with a readable message when the port is taken. */
export function listen(server: { listen(port: number, host: string): unknown; once(event: string, fn: (...args: unknown[]) => void): unknown },
  port: number, host: string, what: string): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', (error) => {
      const code = (error as { code?: string }).code;
      reject(new Error(code === 'EADDRINUSE' ? `${what}: port ${port} on ${host} is already in use` : `${what}: ${String(error)}`));
    });
    server.once('listening', () => resolve());
    server.listen(port, host);
  });
}
