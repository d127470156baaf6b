// CPU-heavy steps of a send (planning a request's content, rendering a message) give the event
// loop a turn before each one. Without it, promises resolved together (a page's requests read,
// a group commit of 50 ledger rows) run their next steps back to back in one long task: hundreds
// of milliseconds during which no relay answer, store reply or heartbeat is handled, and the
// relay connections and store wait although CPU is free.

/** Resolves on the event loop's next turn, after the I/O callbacks already waiting. */
export const nextTurn = (): Promise<void> => new Promise((resolve) => { setImmediate(resolve); });
