// A few SMTP connections to the relay shared by every send, as nodemailer's smtp-pool kept them
// for Herald, without its per-message Mailer and MailComposer work: a message comes as its
// envelope and DATA bytes. Connections open as messages wait (up to `size`) and are kept for
// any number of messages; one that closes or fails is dropped, and the next waiting message
// opens another. A message the relay refuses (an answer to MAIL, RCPT or DATA) fails alone:
// RSET, and the connection takes the next one. Urgent messages (transactional mail) go ahead
// of the others waiting (a campaign's), so a single send never queues behind a campaign's pages.
import type SMTPConnection from 'nodemailer/lib/smtp-connection';
import { isTransientError } from 'nodemailer/lib/errors';
import { DataConnection } from './data-connection';
import type { Envelope } from './envelope';

interface Job {
  envelope: Envelope;
  data: Buffer;
  urgent: boolean;
  /** Times it went back to the queue because its connection had been closed under it. */
  requeues: number;
  done(error: Error | null, response?: string): void;
}

interface Member {
  connection: DataConnection;
  state: 'opening' | 'idle' | 'busy' | 'gone';
  /** Messages it was given: a connection given none yet is not one the relay may have closed for being idle. */
  used: number;
  job?: Job;
}

/** As nodemailer's pool: how often a message goes back to the queue, and the pause after a connection failed to open. */
const MAX_REQUEUES = 5;
const REOPEN_DELAY_MS = 100;

/** An SMTPConnection error: what classifyRelayFailure (./transport.ts) reads, and the kind of failure. */
type SmtpError = Error & { code?: string; responseCode?: number; command?: string };

const closedError = (message: string): SmtpError => Object.assign(new Error(message), { code: 'ECONNECTION' });

/** The relay refused this message; its connection is fine (nodemailer's pool: EENVELOPE or EMESSAGE, but 421 closes). */
const isRefusal = (error: SmtpError) =>
  (error.code === 'EENVELOPE' || error.code === 'EMESSAGE') && error.responseCode !== 421;

export class RelayPool {
  /** Messages waiting for a connection: the urgent ones first, each queue in order. */
  private readonly urgent: Job[] = [];
  private readonly waiting: Job[] = [];
  private readonly idle: Member[] = [];
  private opening = 0;
  /** Connections opening, idle or busy. */
  private members = 0;
  private closed = false;

  constructor(
    private readonly options: SMTPConnection.Options,
    private readonly auth: SMTPConnection.AuthenticationType | undefined,
    private size: number,
  ) {}

  /**
   * Resolves with the relay's answer to the message; rejects with the SMTP connection's error
   * (responseCode, command). `urgent`: it goes ahead of the messages waiting that are not.
   */
  send(envelope: Envelope, data: Buffer, urgent = false): Promise<string> {
    if (this.closed) return Promise.reject(closedError('Connection pool was closed'));
    return new Promise((resolve, reject) => {
      this.queueOf(urgent).push({ envelope, data, urgent, requeues: 0, done: (error, response) => (error ? reject(error) : resolve(response ?? '')) });
      this.dispatch();
    });
  }

  /** Waiting messages fail, idle connections close, busy ones once their message is answered. */
  close(): void {
    this.closed = true;
    for (const job of [...this.urgent.splice(0), ...this.waiting.splice(0)]) job.done(closedError('Connection pool was closed'));
    for (const member of this.idle.slice()) this.drop(member);
  }

  /** Every message waiting for a connection fails with `error` (its relay went down: they go elsewhere). */
  failWaiting(error: Error): void {
    for (const job of [...this.urgent.splice(0), ...this.waiting.splice(0)]) job.done(error);
  }

  /** At most `size` connections from now on: idle ones beyond close now, busy ones once their message is answered. */
  resize(size: number): void {
    this.size = size;
    while (this.members > this.size && this.idle.length > 0) this.drop(this.idle[0]);
    this.dispatch();
  }

  private queueOf(urgent: boolean): Job[] {
    return urgent ? this.urgent : this.waiting;
  }

  private get pending(): number {
    return this.urgent.length + this.waiting.length;
  }

  /** The next message to send: the first urgent one, else the first other. */
  private next(): Job | undefined {
    return this.urgent.shift() ?? this.waiting.shift();
  }

  private dispatch(): void {
    if (this.closed) return;
    while (this.pending > 0 && this.idle.length > 0) this.run(this.idle.pop()!, this.next()!);
    while (this.pending > this.opening && this.members < this.size) this.open();
  }

  private open(): void {
    const connection = new DataConnection(this.options);
    const member: Member = { connection, state: 'opening', used: 0 };
    this.members += 1;
    this.opening += 1;
    // A connection that cannot be opened (refused, timed out, a login refused) fails the oldest
    // waiting message with its error, as nodemailer's pool failed the message it opened it for:
    // a relay that is down is reported, not waited for.
    const failedToOpen = (error: Error) => {
      if (member.state !== 'opening') return;
      this.opening -= 1;
      this.drop(member);
      this.next()?.done(error);
      setTimeout(() => this.dispatch(), REOPEN_DELAY_MS); // not at once: a relay that is down is not hammered
    };
    // Errors of a busy connection reach its send's callback; an idle one's end it ('end' follows).
    connection.on('error', (error: Error) => failedToOpen(error));
    connection.once('end', () => {
      if (member.state === 'opening') {
        failedToOpen(closedError('Connection closed'));
      } else if (member.state === 'idle') {
        this.drop(member); // closed by the relay (its idle timeout) or by the socket timeout: the next message opens another
      } else if (member.state === 'busy') {
        // SMTPConnection calls the send's callback right after 'end', but not a reset's (after a
        // refusal): whatever was under way ends here.
        setImmediate(() => (member.job ? this.finished(member, closedError('Connection closed')) : this.dropAndDispatch(member)));
      }
    });
    connection.connect((error?: Error | null) => {
      if (error) return failedToOpen(error);
      if (member.state !== 'opening') return;
      if (!this.auth || !connection.allowsAuth) return this.ready(member);
      connection.login(this.auth, (loginError) => (loginError ? failedToOpen(loginError) : this.ready(member)));
    });
  }

  private ready(member: Member): void {
    if (member.state !== 'opening') return;
    this.opening -= 1;
    this.release(member);
  }

  private run(member: Member, job: Job): void {
    member.state = 'busy';
    member.job = job;
    member.connection.sendData(job.envelope, job.data, (error, info) => this.finished(member, error, info?.response));
  }

  /** The relay answered the message of a busy connection, or the connection failed under it. */
  private finished(member: Member, error: SmtpError | null, response?: string): void {
    const job = member.job;
    if (member.state !== 'busy' || !job) return;
    member.job = undefined;
    const { connection } = member;
    const reused = member.used > 0;
    member.used += 1;
    if (!error) {
      // Free before the answer reaches its sender (a promise: later), so that the sender's next
      // message finds this connection instead of opening another.
      this.release(member);
      job.done(null, response);
      return;
    }
    if (reused && !connection.dataWritten && isTransientError(error) && job.requeues < MAX_REQUEUES) {
      // A connection the relay closed while it was idle, seen only now: none of the message went
      // out, so it goes out over another connection.
      job.requeues += 1;
      this.queueOf(job.urgent).unshift(job);
      this.dropAndDispatch(member);
      return;
    }
    job.done(error);
    if (isRefusal(error) && !connection.destroyed) {
      connection.reset((resetError) => (resetError ? this.dropAndDispatch(member) : this.release(member)));
      return;
    }
    this.dropAndDispatch(member);
  }

  /** The connection takes the next waiting message, or waits for one. */
  private release(member: Member): void {
    if (member.state === 'gone') return;
    if (this.closed || member.connection.destroyed || this.members > this.size) {
      this.dropAndDispatch(member);
      return;
    }
    const job = this.next();
    if (job) {
      this.run(member, job);
    } else {
      member.state = 'idle';
      this.idle.push(member);
    }
  }

  private drop(member: Member): void {
    if (member.state === 'gone') return;
    if (member.state === 'idle') this.idle.splice(this.idle.indexOf(member), 1);
    member.state = 'gone';
    this.members -= 1;
    member.connection.close();
  }

  /** Dropped, and another connection opened if messages wait for one. */
  private dropAndDispatch(member: Member): void {
    this.drop(member);
    this.dispatch();
  }
}
