// The extra fields of each tracking event type, exactly as the spec's table lists them, shaped
// from what a hit knows (pure: the endpoints gather the inputs, core/tracking/recorder.ts writes).
//   opened, first_opened   the client fields; first_opened also seconds_from_sent. An open
//                          through a mail proxy (./mail-proxy.ts) leaves every client field out.
//   clicked, first_clicked the client fields (always, proxy or not), url, link_id, interests
//                          (when the link has some), contact_id (when the address is a contact).
//   shared                 the client fields and shared_on.
//   unsubscribed           reason.
//   viewed_online          nothing beyond the general fields.
import type { TrackedLink } from '../content/tracking/token';
import type { Place } from './geoip';
import { plainIpv4 } from './mail-proxy';
import type { DeviceFields } from './user-agent';

/** Device and place of a hit, in the spec's order. */
export interface ClientFields extends DeviceFields, Place { user_agent: string; ip: string }

/** Every key an open through a mail proxy leaves out. */
export const CLIENT_KEYS = [
  'user_agent', 'os_class', 'os', 'os_version', 'agent_name', 'agent_version', 'agent_name_version', 'ip', 'country', 'city',
] as const satisfies ReadonlyArray<keyof ClientFields>;

/** A longer User-Agent is cut: it is stored in every event of the hit. */
export const MAX_USER_AGENT = 512;

export function clientFields(userAgent: string, ip: string, device: DeviceFields, place: Place): ClientFields {
  return {
    user_agent: userAgent.slice(0, MAX_USER_AGENT),
    os_class: device.os_class,
    os: device.os,
    os_version: device.os_version,
    agent_name: device.agent_name,
    agent_version: device.agent_version,
    agent_name_version: device.agent_name_version,
    ip: plainIpv4(ip) ?? ip,
    country: place.country,
    city: place.city,
  };
}

/** An open's fields: the client's, or none for an open through a mail proxy (`client` undefined). */
export function openFields(client: ClientFields | undefined): Partial<ClientFields> {
  return client ?? {};
}

/** Whole seconds from the send to `at` (never negative: clocks of two hosts may differ a little). */
export function secondsFromSent(sentTimestamp: string, at: Date): number {
  return Math.max(0, Math.floor((at.getTime() - Date.parse(sentTimestamp)) / 1000));
}

export function firstOpenFields(client: ClientFields | undefined, sentTimestamp: string, at: Date): Record<string, unknown> {
  return { ...openFields(client), seconds_from_sent: secondsFromSent(sentTimestamp, at) };
}

export function clickFields(client: ClientFields, link: TrackedLink, contactId: string | undefined): Record<string, unknown> {
  return {
    ...client,
    url: link.url,
    link_id: String(link.linkId),
    ...(link.interests.length > 0 ? { interests: link.interests } : {}),
    ...(contactId !== undefined ? { contact_id: contactId } : {}),
  };
}

export function shareFields(client: ClientFields, network: string): Record<string, unknown> {
  return { ...client, shared_on: network };
}
