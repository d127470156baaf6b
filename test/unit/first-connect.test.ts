// A starting process's first connect (adapters/first-connect.ts): attempts until one succeeds or the
// deadline passes; an error that another attempt cannot cure ends it at once.
import { firstConnect } from '../../adapters/first-connect';

it('tries again after a failed attempt and returns what the attempt that succeeded made', async () => {
  let attempts = 0;
  const retried: unknown[] = [];
  const made = await firstConnect(async () => {
    attempts += 1;
    if (attempts < 3) throw new Error(`refused ${attempts}`);
    return 'connected';
  }, { onRetry: (error) => retried.push((error as Error).message) });
  expect(made).toBe('connected');
  expect(retried).toEqual(['refused 1', 'refused 2']);
});

it('throws the last failure once its deadline has passed', async () => {
  let attempts = 0;
  await expect(firstConnect(async () => { attempts += 1; throw new Error('still down'); }, { forMs: 0 })).rejects.toThrow('still down');
  expect(attempts).toBe(1);
});

it('throws at once an error another attempt cannot cure', async () => {
  let attempts = 0;
  const refused = firstConnect(async () => { attempts += 1; throw new Error('bad credentials'); }, { retryable: () => false });
  await expect(refused).rejects.toThrow('bad credentials');
  expect(attempts).toBe(1);
});
