/** Polls `probe` every 100 ms until it returns a truthy value, which it then returns. */
export async function waitUntil<T>(what: string, probe: () => Promise<T | undefined | null | false>, timeoutMs = 30000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
