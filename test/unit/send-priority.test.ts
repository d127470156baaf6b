// Transactional pages ahead of campaign messages in one worker (core/sending/priority.ts).
import { SendPriority } from '../../core/sending/priority';

/** Resolves with `'waiting'` if `promise` has not settled once the event loop turned a few times. */
const stateOf = async (promise: Promise<unknown>) => {
  let settled = false;
  void promise.then(() => { settled = true; });
  for (let i = 0; i < 5; i++) await new Promise((resolve) => setImmediate(resolve));
  return settled ? 'through' : 'waiting';
};

describe('SendPriority', () => {
  afterEach(() => jest.useRealTimers());

  it('lets bulk work through at once while no urgent work runs', async () => {
    expect(await stateOf(new SendPriority(1_000).bulkTurn())).toBe('through');
  });

  it('holds bulk work while urgent work runs and lets it through when the last urgent page ends', async () => {
    const priority = new SendPriority(60_000);
    let endFirst!: () => void;
    let endSecond!: () => void;
    const first = priority.urgent(new Promise<void>((resolve) => { endFirst = resolve; }));
    const second = priority.urgent(new Promise<void>((resolve) => { endSecond = resolve; }));
    const turn = priority.bulkTurn();
    expect(await stateOf(turn)).toBe('waiting');
    endFirst();
    await first;
    expect(await stateOf(turn)).toBe('waiting'); // one urgent page still runs
    endSecond();
    await second;
    expect(await stateOf(turn)).toBe('through');
  });

  it('releases bulk work after its longest wait, so a steady stream of urgent work never stops it', async () => {
    jest.useFakeTimers({ doNotFake: ['setImmediate'] });
    const priority = new SendPriority(50);
    void priority.urgent(new Promise(() => undefined)); // never ends
    const turn = priority.bulkTurn();
    jest.advanceTimersByTime(49);
    expect(await stateOf(turn)).toBe('waiting');
    jest.advanceTimersByTime(1);
    expect(await stateOf(turn)).toBe('through');
  });

  it('never holds bulk work with a longest wait of 0 (HERALD_CAMPAIGN_YIELD_MS=0)', async () => {
    const priority = new SendPriority(0);
    void priority.urgent(new Promise(() => undefined));
    expect(await stateOf(priority.bulkTurn())).toBe('through');
  });

  it('counts an urgent page that failed as ended', async () => {
    const priority = new SendPriority(60_000);
    await expect(priority.urgent(Promise.reject(new Error('relay down')))).rejects.toThrow('relay down');
    expect(await stateOf(priority.bulkTurn())).toBe('through');
  });
});
