// herald_gathering_backlog: the sum over accounts of the latest count each account's drain
// reported of its send queue; an account at 0 drops out.
import { SendQueueBacklog } from '../../activities/send-metrics';
import { metrics } from '../../adapters/metrics/registry';

const gauge = async () => (await metrics.gatheringBacklog.get()).values[0]?.value ?? 0;

it('sums the latest count per account and forgets an account at 0', async () => {
  const backlog = new SendQueueBacklog();
  backlog.set('a', 5);
  expect(await gauge()).toBe(5);
  backlog.set('b', 3);
  expect(await gauge()).toBe(8);
  backlog.set('a', 2); // a's latest replaces its earlier figure
  expect(await gauge()).toBe(5);
  backlog.set('a', 0);
  expect(await gauge()).toBe(3);
  backlog.set('b', 0);
  expect(await gauge()).toBe(0);
});
