// The gathering backlog, as the workers see it: the AccountSender workflow passes the count of
// requests it still holds with each send attempt (workflows stay free of metrics and I/O), and
// this wrapper sets the gauge before the attempt runs.
import { metrics } from '../adapters/metrics/registry';
import type { SendOutcome, SendRequestsInput } from '../adapters/temporal/contracts';

/**
 * The send activities, with `sendRequests` setting herald_gathering_backlog: the sum over
 * accounts of the latest backlog each one's sender reported to this worker. An account at 0 is
 * forgotten, so the map holds only accounts with work waiting.
 */
export function withGatheringBacklog<T extends { sendRequests(input: SendRequestsInput): Promise<SendOutcome> }>(activities: T): T {
  const backlogs = new Map<string, number>();
  let total = 0;
  const { sendRequests } = activities;
  return {
    ...activities,
    sendRequests(input: SendRequestsInput): Promise<SendOutcome> {
      if (input.backlog !== undefined) {
        total += input.backlog - (backlogs.get(input.account) ?? 0);
        if (input.backlog > 0) backlogs.set(input.account, input.backlog);
        else backlogs.delete(input.account);
        metrics.gatheringBacklog.set(total);
      }
      return sendRequests(input);
    },
  };
}
