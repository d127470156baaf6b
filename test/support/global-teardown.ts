import fs from 'node:fs';

export default async function globalTeardown(): Promise<void> {
  const stack = (globalThis as { __heraldStack?: { stops: Array<() => Promise<void>>; dir: string } }).__heraldStack;
  if (!stack) return;
  await Promise.all(stack.stops.map((stop) => stop()));
  fs.rmSync(stack.dir, { recursive: true, force: true });
}
