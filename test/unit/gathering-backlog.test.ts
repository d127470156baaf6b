// herald_gathering_backlog: the send activity wrapper sums the latest backlog each account's
// AccountSender reported, and leaves the gauge alone for senders that report none.
import { withGatheringBacklog } from '../../activities/send-metrics';
import { metrics } from '../../adapters/metrics/registry';
import type { SendRequestsInput } from '../../adapters/temporal/contracts';

const gauge = async () => (await metrics.gatheringBacklog.get()).values[0]?.value ?? 0;

it('sums the latest backlog per account and forgets an account at 0', async () => {
  const seen: SendRequestsInput[] = [];
  const { sendRequests } = withGatheringBacklog({
    sendRequests: async (input: SendRequestsInput) => { seen.push(input); return { sent: 0, failed: 0, deferred: [] }; },
  });
  const attempt = (account: string, backlog?: number) => sendRequests({ account, requests: [], ...(backlog === undefined ? {} : { backlog }) });
  await attempt('a', 5);
  expect(await gauge()).toBe(5);
  await attempt('b', 3);
  expect(await gauge()).toBe(8);
  await attempt('a', 2); // a's latest replaces its earlier figure
  expect(await gauge()).toBe(5);
  await attempt('c'); // a scheduled send reports nothing
  expect(await gauge()).toBe(5);
  await attempt('a', 0);
  await attempt('b', 0);
  expect(await gauge()).toBe(0);
  expect(seen.map((input) => input.account)).toEqual(['a', 'b', 'a', 'c', 'a', 'b']); // every call reaches the activity
});
