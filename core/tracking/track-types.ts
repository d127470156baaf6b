// Every track_type, in the spec's order (activity filters and webhook endpoints choose among them).
// Pure, with no import: the console (console/src) imports it too.
export const TRACK_TYPES = [
  'track.mail.dropped', 'track.mail.sent', 'track.mail.bounced', 'track.mail.opened', 'track.mail.first_opened',
  'track.mail.clicked', 'track.mail.first_clicked', 'track.mail.unsubscribed', 'track.mail.viewed_online', 'track.mail.shared',
] as const;

export type TrackType = (typeof TRACK_TYPES)[number];
