/** Polls `probe` every `everyMs` (100 ms by default) until it returns a truthy value, which it then returns. */
export async function waitUntil<T>(
  what: string, probe: () => T | undefined | null | false | Promise<T | undefined | null | false>, timeoutMs = 30000, everyMs = 100,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
}
