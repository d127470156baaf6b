// `npm run soak -- [--minutes N] [--kill-every M] [--seed S]`: what the run is told, and the seeded
// random numbers that make a seed replay the same schedule of faults and load.

export interface SoakOptions {
  /** How long the load and the faults run (the drain and the checks come after). */
  minutes: number;
  /** One fault per this many minutes, at a random moment within each period. */
  killEveryMinutes: number;
  seed: number;
}

export class UsageError extends Error {}

export const USAGE = 'usage: npm run soak -- [--minutes N (default 10)] [--kill-every M (default 2)] [--seed S (default: random, printed)]';

export function parseSoakOptions(args: string[]): SoakOptions {
  const options: SoakOptions = { minutes: 10, killEveryMinutes: 2, seed: Math.floor(Math.random() * 2 ** 31) };
  for (let i = 0; i < args.length; i += 1) {
    const name = args[i];
    const value = Number(args[i + 1]);
    const positive = Number.isFinite(value) && value > 0;
    if (name === '--minutes' && positive) options.minutes = value;
    else if (name === '--kill-every' && positive) options.killEveryMinutes = value;
    else if (name === '--seed' && Number.isInteger(value) && value >= 0) options.seed = value;
    else throw new UsageError(`${name} ${args[i + 1] ?? ''}: not understood\n${USAGE}`);
    i += 1;
  }
  return options;
}

/** mulberry32: small, fast, and the same sequence for the same seed on every machine. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** An independent stream per purpose, so adding load does not move the faults of a seed. */
export function streamOf(seed: number, purpose: string): () => number {
  let hash = seed >>> 0;
  for (const char of purpose) hash = Math.imul(hash ^ char.charCodeAt(0), 16777619) >>> 0;
  return seededRandom(hash);
}
