// Which relays may take a message: a relay set in the relays file's order, each with conditions
// that all must match (a relay without any takes anything). The first relay that matches and is
// up takes the message; the next one that matches is its fallback (./router.ts).

/** What a message is, for routing: transactional requests, campaign pages, automation emails, Herald's own mail (opt-in confirmations). */
export const STREAMS = ['transactional', 'campaign', 'automation', 'system'] as const;
export type Stream = (typeof STREAMS)[number];

export interface RelayDefinition {
  /** Named in metrics, logs and the console (never its URL: it may hold credentials). */
  name: string;
  /** smtp://user:pass@host:port or smtps://… */
  url: string;
  streams?: Stream[];
  accounts?: string[];
  /** Domains of the message's sender (its From address), lowercase. */
  senderDomains?: string[];
  /** Domains of the message's recipient (its `to`, not its copies), lowercase. */
  recipientDomains?: string[];
  /** Messages a second through this relay, across every worker process. */
  ratePerSecond?: number;
  /** Connections open to this relay at once, across every worker process (DEFAULT_MAX_CONNECTIONS when unset). */
  maxConnections?: number;
}

/** Connections per relay when none is set (as SMTP_RELAY_URL's one relay has). */
export const DEFAULT_MAX_CONNECTIONS = 5;

/** What routing reads of a message. */
export interface Route {
  stream: Stream;
  account: string;
  /** The sender's address (From), whose domain `senderDomains` matches. */
  sender: string;
  /** The recipient's address, whose domain `recipientDomains` matches. */
  recipient: string;
}

const domainOf = (address: string) => address.slice(address.lastIndexOf('@') + 1).toLowerCase();

export function matches(relay: RelayDefinition, route: Route): boolean {
  return (!relay.streams || relay.streams.includes(route.stream))
    && (!relay.accounts || relay.accounts.includes(route.account))
    && (!relay.senderDomains || relay.senderDomains.includes(domainOf(route.sender)))
    && (!relay.recipientDomains || relay.recipientDomains.includes(domainOf(route.recipient)));
}
