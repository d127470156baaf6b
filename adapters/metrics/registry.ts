// Herald's Prometheus metrics: one registry per process, served as `GET /metrics` by the API
// (and by a separate worker process on HERALD_WORKER_METRICS_PORT). Every metric is defined
// here, once, so the README's table and the code name the same things; code elsewhere only
// increments them. Labels take a small fixed set of values (a route pattern, never a raw path
// or an account name), so the series stay few.
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';

export const registry = new Registry();
collectDefaultMetrics({ register: registry, prefix: 'herald_' });

export const metrics = {
  httpRequests: new Counter({
    name: 'herald_http_requests_total', help: 'HTTP requests answered, by route pattern, method and status',
    labelNames: ['route', 'method', 'status'] as const, registers: [registry],
  }),
  httpDuration: new Histogram({
    name: 'herald_http_request_duration_seconds', help: 'Time to answer an HTTP request (for sends: the accept latency), by route pattern, method and status',
    labelNames: ['route', 'method', 'status'] as const, registers: [registry],
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
  }),
  messages: new Counter({
    name: 'herald_messages_total', help: 'Messages the send engine finished, by outcome: sent (the relay took it), bounced, dropped (suppressed or cancelled)',
    labelNames: ['outcome'] as const, registers: [registry],
  }),
  relayMessages: new Counter({
    name: 'herald_relay_messages_total', help: 'Messages handed to each relay of the relays file, by outcome: sent, deferred (4xx about the message), failed (5xx about it), trouble (the relay itself failed: the message went to the next relay or its attempt was retried)',
    labelNames: ['relay', 'outcome'] as const, registers: [registry],
  }),
  relayUp: new Gauge({
    name: 'herald_relay_up', help: 'Whether each relay takes messages (1) or is marked down after failing (0), as this worker process sees it',
    labelNames: ['relay'] as const, registers: [registry],
  }),
  trackingHits: new Counter({
    name: 'herald_tracking_hits_total', help: 'Tracking requests answered with a valid token, by kind: open, click, online, share, unsubscribe',
    labelNames: ['kind'] as const, registers: [registry],
  }),
  eventsStored: new Counter({
    name: 'herald_events_stored_total', help: 'Tracking events written to the store, by track_type (retries of an already stored event not counted)',
    labelNames: ['track_type'] as const, registers: [registry],
  }),
  webhookRequests: new Counter({
    name: 'herald_webhook_requests_total', help: 'Webhook POSTs made, by outcome: delivered (2xx), rejected (another status), failed (timeout or connection error)',
    labelNames: ['outcome'] as const, registers: [registry],
  }),
  webhookEventsDelivered: new Counter({
    name: 'herald_webhook_events_delivered_total', help: 'Events in webhook POSTs answered 2xx', registers: [registry],
  }),
  webhookEventsDiscarded: new Counter({
    name: 'herald_webhook_events_discarded_total', help: 'Events discarded after their one retry failed too', registers: [registry],
  }),
  feedbackReports: new Counter({
    name: 'herald_feedback_reports_total',
    help: 'Bounce and complaint events taken from providers\' webhooks and the bounces API, by source (ses, sendgrid, mailgun, postmark, api) and outcome: hard, soft, complaint, ignored (not a bounce, another recipient), unknown (no message Herald sent)',
    labelNames: ['provider', 'outcome'] as const, registers: [registry],
  }),
  bounceMailboxReports: new Counter({
    name: 'herald_bounce_mailbox_reports_total',
    help: 'Messages read from the bounce mailbox, by outcome: bounce, complaint (recorded), nothing (a report of no Herald message, disposed of), unreadable (no report: left, marked)',
    labelNames: ['outcome'] as const, registers: [registry],
  }),
  bounceMailboxLastRead: new Gauge({
    name: 'herald_bounce_mailbox_last_read_timestamp_seconds', help: 'When this worker last read the bounce mailbox through without an error (Unix time)',
    registers: [registry],
  }),
  gatheringBacklog: new Gauge({
    name: 'herald_gathering_backlog', help: 'Send requests waiting in the send queues of the accounts this worker drained, as each drain last counted them',
    registers: [registry],
  }),
};

/** The text exposition of every metric of this process. */
export async function metricsText(): Promise<{ contentType: string; body: string }> {
  return { contentType: registry.contentType, body: await registry.metrics() };
}
