// nodemailer's SMTPConnection (connection, TLS and STARTTLS, EHLO, AUTH, MAIL/RCPT/DATA pipelined
// when the relay offers PIPELINING, the replies and the errors they make) sending a message whose
// DATA bytes were prepared beforehand (./smtp-data.ts) as they are.
//
// The one place that reaches into nodemailer's internals, checked against nodemailer 10.6
// (test/unit/relay-transport.test.ts pins the version and the behaviour, so an upgrade that
// changes them fails a test): once the relay answered DATA with 354, send() calls
// this._createSendStream(callback) for a DataStream, which queues the handler of the relay's
// answer to the message (_actionSMTPStream) and is piped to the socket; send() then writes a
// Buffer message into it with write() and end(). Here the "stream" queues the same handler and
// writes the bytes straight to the socket: they are already dot-stuffed and terminated, and
// DataStream's byte-by-byte JavaScript loop was the relay thread's largest cost per message.
import type { Socket } from 'node:net';
import SMTPConnection from 'nodemailer/lib/smtp-connection';

type AnswerCallback = (error: Error | null, response?: string) => void;

/** What _createSendStream uses of SMTPConnection's internals. */
interface Internals {
  _socket: Socket;
  _responseActions: Array<(reply: string) => void>;
  _actionSMTPStream(reply: string, callback: AnswerCallback): void;
}

const base = SMTPConnection.prototype as unknown as Record<string, unknown>;
if (typeof base._createSendStream !== 'function' || typeof base._actionSMTPStream !== 'function') {
  throw new Error('nodemailer\'s SMTPConnection changed: adapters/relay/data-connection.ts needs a look');
}

export class DataConnection extends SMTPConnection {
  /** Whether the bytes of the message being sent went to the socket (before that, the relay cannot have taken it). */
  dataWritten = false;

  constructor(options: SMTPConnection.Options) {
    if (options.lmtp) throw new Error('LMTP answers once per recipient: not supported here');
    super(options);
  }

  /** Sends `data` (from smtpData: stuffed and terminated) to `envelope`; answers with the relay's reply to it. */
  sendData(envelope: { from: string; to: string[] }, data: Buffer, done: (error: Error | null, info?: SMTPConnection.SentMessageInfo) => void): void {
    this.dataWritten = false;
    // send() keeps the transaction's state on the envelope object it is given: a copy, not the caller's.
    this.send({ from: envelope.from, to: envelope.to }, data, done);
  }

  /** Called by SMTPConnection.send after the 354 (see the top of this file). */
  protected _createSendStream(callback: AnswerCallback) {
    const self = this as unknown as Internals;
    self._responseActions.push((reply) => self._actionSMTPStream(reply, callback));
    const stream = {
      outByteCount: 0,
      write: (bytes: Buffer) => {
        stream.outByteCount += bytes.length;
        this.dataWritten = true;
        self._socket.write(bytes);
      },
      end: () => undefined,
    };
    return stream;
  }
}
