// The bounce mailbox over IMAP, with imapflow: TLS from the first byte (imaps, port 993 unless the
// URL names one), the server's certificate checked as for any TLS connection. The password is
// taken from the URL for the login and goes nowhere else: errors are written anew from what the
// server answered (its response text), never with the command or the URL.
import net from 'node:net';
import type tls from 'node:tls';
import { ImapFlow, type ImapFlowError } from 'imapflow';
import { describeMailbox, MailboxError, UNREADABLE_KEYWORD, type MailboxClient, type MailboxTarget, type OpenMailbox } from './mailbox-port';

export interface ImapClientOptions {
  /** More TLS options (tests: the CA of their server's throwaway certificate). Verification stays on. */
  tls?: tls.ConnectionOptions;
  /** Connection and greeting time-outs (ms); 30 s and 15 s by default. */
  connectionTimeoutMs?: number;
}

export function imapMailboxClient(options: ImapClientOptions = {}): MailboxClient {
  return {
    async open(target) {
      const client = connectClient(target, options);
      const where = describeMailbox(target);
      try {
        await client.connect();
      } catch (error) {
        client.close();
        throw describeFailure(error, where);
      }
      try {
        const lock = await client.getMailboxLock(target.folder);
        return openFolder(client, target, () => lock.release());
      } catch (error) {
        await client.logout().catch(() => client.close());
        const e = error as ImapFlowError;
        if (e.mailboxMissing || e.responseStatus === 'NO') {
          throw new MailboxError('folder', `${where}: the folder "${target.folder}" cannot be opened${e.responseText ? ` (${e.responseText})` : ''}`);
        }
        throw describeFailure(error, where);
      }
    },
  };
}

function connectClient(target: MailboxTarget, options: ImapClientOptions): ImapFlow {
  const url = new URL(target.url);
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  const client = new ImapFlow({
    host,
    port: url.port ? Number(url.port) : 993,
    secure: true,
    // SNI names a host, never an address.
    ...(net.isIP(host) ? {} : { servername: host }),
    auth: { user: decodeURIComponent(url.username), pass: decodeURIComponent(url.password) },
    tls: { ...options.tls, rejectUnauthorized: true },
    logger: false,
    disableAutoIdle: true,
    connectionTimeout: options.connectionTimeoutMs ?? 30_000,
    greetingTimeout: options.connectionTimeoutMs ?? 15_000,
    socketTimeout: 5 * 60_000,
    clientInfo: { name: 'Herald' },
  });
  // A connection that breaks between commands is reported on the next command; the event alone
  // (with no listener, an 'error' event would end the process) says nothing more.
  client.on('error', () => undefined);
  return client;
}

function openFolder(client: ImapFlow, target: MailboxTarget, release: () => void): OpenMailbox {
  const byUid = { uid: true } as const;
  return {
    async pending(limit) {
      const found = await client.search({
        deleted: false, unKeyword: UNREADABLE_KEYWORD, ...(target.afterReading === 'flag' ? { seen: false } : {}),
      }, byUid);
      const uids = (found || []).sort((a, b) => a - b);
      const taken = uids.slice(0, limit);
      if (taken.length === 0) return { messages: [], total: 0 };
      const sized = await client.fetchAll(taken.join(','), { uid: true, size: true }, byUid);
      const sizes = new Map(sized.map((m) => [m.uid, m.size ?? 0]));
      return { messages: taken.filter((uid) => sizes.has(uid)).map((uid) => ({ uid, size: sizes.get(uid)! })), total: uids.length };
    },
    async read(uid) {
      // imapflow fetches the source with BODY.PEEK[]: reading sets no \Seen.
      const message = await client.fetchOne(String(uid), { uid: true, source: true }, byUid);
      return message ? message.source : undefined;
    },
    async dispose(uid) {
      // With UIDPLUS the expunge is UID EXPUNGE: only this message goes.
      if (target.afterReading === 'delete') await client.messageDelete(String(uid), byUid);
      else await client.messageFlagsAdd(String(uid), ['\\Seen'], byUid);
    },
    async markUnreadable(uid) {
      await client.messageFlagsAdd(String(uid), [UNREADABLE_KEYWORD], byUid);
    },
    async close() {
      release();
      await client.logout().catch(() => client.close());
    },
  };
}

/** A MailboxError from what imapflow raised: the server's words and the socket's code, nothing of the credentials. */
function describeFailure(error: unknown, where: string): MailboxError {
  const e = error as ImapFlowError;
  if (e.authenticationFailed) {
    return new MailboxError('login', `${where}: the server refused the login (check the user and password in feedback.mailbox.url)${e.responseText ? `: ${e.responseText}` : ''}`);
  }
  if (e.tlsFailed || /certificate|self[- ]signed|TLS|SSL/i.test(e.message ?? '')) {
    return new MailboxError('connection', `${where}: TLS failed (imaps only; the server's certificate must be valid for its name): ${e.code ?? e.message}`);
  }
  const code = e.code ? ` (${e.code})` : '';
  return new MailboxError('connection', `${where}: cannot connect${code}: ${e.responseText ?? e.message ?? 'connection failed'}`);
}
