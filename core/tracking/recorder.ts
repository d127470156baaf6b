// What each tracking hit records, once its token is verified (api/tracking/router.ts): the
// message's general fields from its send-ledger event (core/sending/sent-mail.ts, cached), the hit's
// extra fields (./hit-fields.ts), written through the process's one EventWriter, which groups
// the events of hits arriving together into one insert. Every method resolves only once its
// events are stored, so an answered hit is never lost. A hit on a message whose send is not
// recorded yet is held instead, and recorded once it is (./held-hits.ts).
//
// Each hit has an identity (an ObjectId its request gives: api/tracking/hit-identity.ts): its
// event's track_id, or its held hit's _id, is made from it, so recording one hit twice (a request
// retried after a write whose answer was lost) stores it once.
//
// first_opened and first_clicked have a track_id derived from the mail_id (uniqueness 'first'):
// the unique index on track_id keeps exactly one, whatever the number of concurrent hits or
// processes. This process also remembers the mail_ids whose first_* it has stored, so later hits
// of the same message do not send a duplicate for the index to refuse.
import type { ObjectId } from 'mongodb';
import { perStore } from '../../adapters/store/per-store';
import { EventWriter } from './event-writer';
import { eventOfSentMail, type TrackType } from './events';
import { metrics } from '../../adapters/metrics/registry';
import { sentEventOf } from '../sending/sent-mail';
import type { EventDoc, HeldHitDoc, Store } from '../../adapters/store/store';
import type { MessageKind, TrackedLink, TrackingPayload } from '../content/tracking/token';
import { contactIdOf } from './contact-ids';
import { placeOf } from './geoip';
import { clickFields, clientFields, firstOpenFields, openFields, shareFields, type ClientFields } from './hit-fields';
import { mailProxyOf } from './mail-proxy';
import type { ShareNetwork } from './share-networks';
import { unsubscribeAddress, unsubscribedEvent, unsubscribeMessage, type UnsubscribeReason } from './unsubscribe';
import { HeldHits } from './held-hits';
import { recipientOf } from './message-recipient';
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

/**
 * A valid token's payload and the message it names: `sent`, its ledger event, once its send is
 * recorded; until then (a send being recorded, ./held-hits.ts) only its address is known.
 */
export interface Resolved<P extends TrackingPayload> { payload: P; mailId: string; email: string; sent?: EventDoc }

/** mail_ids whose first_* this process stored, at most this many (the oldest forgotten first). */
const MAX_FIRSTS = 100_000;

export class TrackingRecorder {
  private readonly writer: EventWriter;
  private readonly tokens: VerifiedTokens;
  private readonly firsts = new Set<string>();
  readonly held: HeldHits;

  constructor(private readonly store: Store) {
    this.writer = eventWriterOf(store);
    this.tokens = new VerifiedTokens(store);
    this.held = new HeldHits(store, (hit, sent) => this.recordHeld(hit, sent));
  }

  /** A valid message token of `kind` (o, v, u, s) and its message; undefined otherwise (the link is then a 404). */
  async resolveMessage(kind: MessageKind, token: string): Promise<Resolved<MessagePayload> | undefined> {
    return this.messageOf(await this.tokens.verify(kind, token));
  }

  /** A valid click token and its message; undefined otherwise. */
  async resolveClick(token: string): Promise<Resolved<ClickPayload> | undefined> {
    return this.messageOf(await this.tokens.verify('c', token));
  }

  /**
   * Only a message sent has links that work: one the ledger shows as sent, or one with no outcome
   * yet whose stored request still names it (being sent, or sent by a worker that died before
   * recording it). A message that failed or was dropped, or whose history is pruned, has none.
   */
  private async messageOf<P extends TrackingPayload>(verified: VerifiedToken<P> | undefined): Promise<Resolved<P> | undefined> {
    if (!verified) return undefined;
    const { payload, mailId } = verified;
    const outcome = await sentEventOf(this.store, payload.message.account, mailId);
    if (outcome) return outcome.track_type === 'track.mail.sent' ? { payload, mailId, email: outcome.email, sent: outcome } : undefined;
    const email = await recipientOf(this.store, payload.message);
    return email === undefined ? undefined : { payload, mailId, email };
  }

  /** With the store's connection (adapters/store/per-store.ts): no more sweeps of held hits. */
  stop(): void {
    this.held.stop();
  }

  /** Counts a valid hit that records nothing (the unsubscribe page shown). */
  countHit(kind: HitKind): void {
    metrics.trackingHits.inc({ kind });
  }

  async open(message: Resolved<TrackingPayload>, hit: Hit, id: ObjectId, at = new Date()): Promise<void> {
    if (message.sent) await this.recordOpen(message.sent, hit, at, id);
    else await this.hold(message, id, 'open', at, { hit });
  }

  async click(message: Resolved<ClickPayload>, hit: Hit, id: ObjectId, at = new Date()): Promise<void> {
    if (message.sent) await this.recordClick(message.sent, message.payload.link, hit, at, id);
    else await this.hold(message, id, 'click', at, { hit, link: message.payload.link });
  }

  async viewOnline(message: Resolved<TrackingPayload>, id: ObjectId, at = new Date()): Promise<void> {
    if (message.sent) await this.recordOnline(message.sent, at, id);
    else await this.hold(message, id, 'online', at, {});
  }

  async share(message: Resolved<TrackingPayload>, network: ShareNetwork, hit: Hit, id: ObjectId, at = new Date()): Promise<void> {
    if (message.sent) await this.recordShare(message.sent, network, hit, at, id);
    else await this.hold(message, id, 'share', at, { hit, network });
  }

  /** The address is unsubscribed at once either way; a held hit's event waits for the message's row. */
  async unsubscribe(message: Resolved<TrackingPayload>, reason: UnsubscribeReason, id: ObjectId, at = new Date()): Promise<void> {
    if (message.sent) {
      await unsubscribeMessage(this.store, this.writer, message.sent, reason, at);
      this.countHit('unsubscribe');
      return;
    }
    await unsubscribeAddress(this.store, message.payload.message.account, message.email);
    await this.hold(message, id, 'unsubscribe', at, { reason });
  }

  private hold(message: Resolved<TrackingPayload>, id: ObjectId, kind: HeldHitDoc['kind'], at: Date, fields: Partial<HeldHitDoc>): Promise<void> {
    return this.held.hold({ _id: id, account: message.payload.message.account, mailId: message.mailId, kind, at, ...fields });
  }

  /** A held hit, its message now recorded as `sent`: the events it would have had, under the hit's identity (a second sweep adds none). */
  private async recordHeld(held: HeldHitDoc, sent: EventDoc): Promise<void> {
    const id = held._id;
    const hit = held.hit ?? { userAgent: '', ip: '' };
    switch (held.kind) {
      case 'open': return this.recordOpen(sent, hit, held.at, id);
      case 'click': return this.recordClick(sent, held.link!, hit, held.at, id);
      case 'online': return this.recordOnline(sent, held.at, id);
      case 'share': return this.recordShare(sent, held.network as ShareNetwork, hit, held.at, id);
      case 'unsubscribe':
        await this.writer.write([unsubscribedEvent(sent, held.reason as UnsubscribeReason, held.at)]);
        this.countHit('unsubscribe');
    }
  }

  private async recordOpen(sent: EventDoc, hit: Hit, at: Date, id: ObjectId): Promise<void> {
    const proxied = mailProxyOf(hit.userAgent, hit.ip) !== undefined;
    // A proxy's device and place are not the reader's: not even looked up.
    const client = proxied ? undefined : await this.clientOf(hit);
    await this.writeWithFirst(sent, at, id, 'track.mail.opened', openFields(client), 'track.mail.first_opened', () => firstOpenFields(client, sent.sent_timestamp, at));
    this.countHit('open');
  }

  private async recordClick(sent: EventDoc, link: TrackedLink, hit: Hit, at: Date, id: ObjectId): Promise<void> {
    const [client, contactId] = await Promise.all([this.clientOf(hit), contactIdOf(this.store, sent.account, sent.email)]);
    const extra = clickFields(client, link, contactId);
    await this.writeWithFirst(sent, at, id, 'track.mail.clicked', extra, 'track.mail.first_clicked', () => extra);
    this.countHit('click');
  }

  private async recordOnline(sent: EventDoc, at: Date, id: ObjectId): Promise<void> {
    await this.writer.write([eventOfSentMail(sent, 'track.mail.viewed_online', at, id)]);
    this.countHit('online');
  }

  private async recordShare(sent: EventDoc, network: ShareNetwork, hit: Hit, at: Date, id: ObjectId): Promise<void> {
    await this.writer.write([eventOfSentMail(sent, 'track.mail.shared', at, id, shareFields(await this.clientOf(hit), network))]);
    this.countHit('share');
  }

  private async clientOf(hit: Hit): Promise<ClientFields> {
    return clientFields(hit.userAgent, hit.ip, deviceOf(hit.userAgent), await placeOf(hit.ip));
  }

  /**
   * The hit's event (its track_id from the hit's `id`), and the first_* event too unless this
   * process knows it is stored already.
   */
  private async writeWithFirst(
    sent: EventDoc, at: Date, id: ObjectId, type: TrackType, extra: Record<string, unknown>, firstType: TrackType, firstExtra: () => Record<string, unknown>,
  ): Promise<void> {
    const key = `${firstType}\u0000${sent.account}\u0000${sent.mail_id}`;
    const known = this.firsts.has(key);
    const events = [eventOfSentMail(sent, type, at, id, extra)];
    if (!known) events.push(eventOfSentMail(sent, firstType, at, 'first', firstExtra()));
    await this.writer.write(events);
    if (!known) {
      if (this.firsts.size >= MAX_FIRSTS) this.firsts.delete(this.firsts.values().next().value!);
      this.firsts.add(key);
    }
  }
}
