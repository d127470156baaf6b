// What the bounce mailbox reader (core/bounces/mailbox.ts) needs of a mailbox: the messages
// waiting, their bytes, and what is done to each once read. imap-client.ts is the IMAP one; this
// file is pure definitions, so the domain does not load the IMAP client to name them.

/** The keyword of a message the reader cannot read: left for a person, skipped by later reads. */
export const UNREADABLE_KEYWORD = '$HeraldUnreadable';

/** Where and what a read takes; the URL (imaps://user:password@host:port) carries the credentials. */
export interface MailboxTarget { url: string; folder: string; afterReading: 'delete' | 'flag' }

/** A message waiting in the mailbox: its UID and size. */
export interface MailboxMessage { uid: number; size: number }

/** One open session on the mailbox's folder. */
export interface OpenMailbox {
  /** The messages to read, oldest first: not deleted, not marked unreadable (and, when flagging, not \Seen); `total` counts them all. */
  pending(limit: number): Promise<{ messages: MailboxMessage[]; total: number }>;
  /** The message's bytes, without setting \Seen; undefined when it is gone (another reader took it). */
  read(uid: number): Promise<Buffer | undefined>;
  /** Deletes (and expunges) the message, or flags it \Seen, as the target says. */
  dispose(uid: number): Promise<void>;
  /** Marks the message with UNREADABLE_KEYWORD and leaves it. */
  markUnreadable(uid: number): Promise<void>;
  close(): Promise<void>;
}

export interface MailboxClient {
  /** Connects (TLS), logs in and opens the folder; rejects with a MailboxError whose message holds no password. */
  open(target: MailboxTarget): Promise<OpenMailbox>;
}

/** Why the mailbox could not be read: `login` (refused credentials) and `folder` (no such folder) need the operator; `connection` may pass. */
export class MailboxError extends Error {
  constructor(readonly kind: 'login' | 'folder' | 'connection', message: string) {
    super(message);
    this.name = 'MailboxError';
  }
}

/** The mailbox named for logs and errors: imaps://user@host:port/folder, never the password. */
export function describeMailbox(target: MailboxTarget): string {
  try {
    const url = new URL(target.url);
    return `imaps://${url.username ? `${decodeURIComponent(url.username)}@` : ''}${url.host}/${target.folder}`;
  } catch {
    return `(a mailbox URL that does not parse)/${target.folder}`;
  }
}
