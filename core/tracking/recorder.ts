// What each tracking hit records, once its token is verified (api/tracking/router.ts): the
// message's general fields from its send-ledger event (core/sending/sent-mail.ts, cached), the hit's
// extra fields (./hit-fields.ts), written through the process's one EventWriter, which groups
// the events of hits arriving together into one insert. Every method resolves only once its
// events are stored, so an answered hit is never lost.
//
// first_opened and first_clicked have a track_id derived from the mail_id (uniqueness 'first'):
// the unique index on track_id keeps exactly one, whatever the number of concurrent hits or
// processes. This process also remembers the mail_ids whose first_* it has stored, so later hits
// of the same message do not send a duplicate for the index to refuse.
import { perStore } from '../../adapters/store/per-store';
import { EventWriter } from './event-writer';
import { eventOfSentMail, type TrackType } from './events';
import { metrics } from '../../adapters/metrics/registry';
import { sentEventOf } from '../sending/sent-mail';
import type { EventDoc, Store } from '../../adapters/store/store';
import type { MessageKind, TrackedLink, TrackingPayload } from '../content/tracking/token';
import { contactIdOf } from './contact-ids';
import { placeOf } from './geoip';
import { clickFields, clientFields, firstOpenFields, openFields, shareFields, type ClientFields } from './hit-fields';
import { mailProxyOf } from './mail-proxy';
import type { ShareNetwork } from './share-networks';
import { unsubscribeMessage, type UnsubscribeReason } from './unsubscribe';
import { deviceOf } from './user-agent';
import { VerifiedTokens, type VerifiedToken } from './verified-tokens';

/** The `kind` label of metrics.trackingHits. */
export type HitKind = 'open' | 'click' | 'online' | 'share' | 'unsubscribe';

/** Who made a hit: its User-Agent header and client address. */
export interface Hit { userAgent: string; ip: string }

/** The process's recorder for a store: one, so every route of every request shares its caches and writes. */
export const trackingRecorderOf = perStore((store) => new TrackingRecorder(store));

/** The process's EventWriter for a store: one, so that the hits of every request share its writes. */
export const eventWriterOf = perStore((store) => new EventWriter(store));

type ClickPayload = Extract<TrackingPayload, { kind: 'c' }>;
type MessagePayload = Extract<TrackingPayload, { kind: MessageKind }>;

/** A valid token's payload, and the ledger event of the sent message it names. */
export interface Resolved<P extends TrackingPayload> { payload: P; sent: EventDoc }

/** mail_ids whose first_* this process stored, at most this many (the oldest forgotten first). */
const MAX_FIRSTS = 100_000;

export class TrackingRecorder {
  private readonly writer: EventWriter;
  private readonly tokens: VerifiedTokens;
  private readonly firsts = new Set<string>();

  constructor(private readonly store: Store) {
    this.writer = eventWriterOf(store);
    this.tokens = new VerifiedTokens(store);
  }

  /** A valid message token of `kind` (o, v, u, s) and its sent message; undefined otherwise (the link is then a 404). */
  async resolveMessage(kind: MessageKind, token: string): Promise<Resolved<MessagePayload> | undefined> {
    return this.sentOf(await this.tokens.verify(kind, token));
  }

  /** A valid click token and its sent message; undefined otherwise. */
  async resolveClick(token: string): Promise<Resolved<ClickPayload> | undefined> {
    return this.sentOf(await this.tokens.verify('c', token));
  }

  /** Only a message the ledger shows as sent has links that work. */
  private async sentOf<P extends TrackingPayload>(verified: VerifiedToken<P> | undefined): Promise<Resolved<P> | undefined> {
    if (!verified) return undefined;
    const sent = await sentEventOf(this.store, verified.payload.message.account, verified.mailId);
    return sent?.track_type === 'track.mail.sent' ? { payload: verified.payload, sent } : undefined;
  }

  /** Counts a valid hit that records nothing (the unsubscribe page shown). */
  countHit(kind: HitKind): void {
    metrics.trackingHits.inc({ kind });
  }

  async open(sent: EventDoc, hit: Hit, at = new Date()): Promise<void> {
    const proxied = mailProxyOf(hit.userAgent, hit.ip) !== undefined;
    // A proxy's device and place are not the reader's: not even looked up.
    const client = proxied ? undefined : await this.clientOf(hit);
    await this.writeWithFirst(sent, at, 'track.mail.opened', openFields(client), 'track.mail.first_opened', () => firstOpenFields(client, sent.sent_timestamp, at));
    this.countHit('open');
  }

  async click(sent: EventDoc, link: TrackedLink, hit: Hit, at = new Date()): Promise<void> {
    const [client, contactId] = await Promise.all([this.clientOf(hit), contactIdOf(this.store, sent.account, sent.email)]);
    const extra = clickFields(client, link, contactId);
    await this.writeWithFirst(sent, at, 'track.mail.clicked', extra, 'track.mail.first_clicked', () => extra);
    this.countHit('click');
  }

  async viewOnline(sent: EventDoc, at = new Date()): Promise<void> {
    await this.writer.write([eventOfSentMail(sent, 'track.mail.viewed_online', at, undefined)]);
    this.countHit('online');
  }

  async share(sent: EventDoc, network: ShareNetwork, hit: Hit, at = new Date()): Promise<void> {
    await this.writer.write([eventOfSentMail(sent, 'track.mail.shared', at, undefined, shareFields(await this.clientOf(hit), network))]);
    this.countHit('share');
  }

  async unsubscribe(sent: EventDoc, reason: UnsubscribeReason, at = new Date()): Promise<void> {
    await unsubscribeMessage(this.store, this.writer, sent, reason, at);
    this.countHit('unsubscribe');
  }

  private async clientOf(hit: Hit): Promise<ClientFields> {
    return clientFields(hit.userAgent, hit.ip, deviceOf(hit.userAgent), await placeOf(hit.ip));
  }

  /** The hit's event, and the first_* event too unless this process knows it is stored already. */
  private async writeWithFirst(
    sent: EventDoc, at: Date, type: TrackType, extra: Record<string, unknown>, firstType: TrackType, firstExtra: () => Record<string, unknown>,
  ): Promise<void> {
    const key = `${firstType}\u0000${sent.account}\u0000${sent.mail_id}`;
    const known = this.firsts.has(key);
    const events = [eventOfSentMail(sent, type, at, undefined, extra)];
    if (!known) events.push(eventOfSentMail(sent, firstType, at, 'first', firstExtra()));
    await this.writer.write(events);
    if (!known) {
      if (this.firsts.size >= MAX_FIRSTS) this.firsts.delete(this.firsts.values().next().value!);
      this.firsts.add(key);
    }
  }
}
