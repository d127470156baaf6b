// Where providers' bounce and complaint reports come from, as the relays file names them (the
// secrets each provider shows): their webhooks (../../api/feedback) and a bounce mailbox.

export interface FeedbackSettings {
  /** Mailgun's HTTP webhook signing key, as its control panel shows it. */
  mailgun?: { signingKey: string };
  /** SendGrid's Event Webhook verification key: the base64 of its DER (SPKI) public key. */
  sendgrid?: { publicKey: string };
  /** The basic-auth pair set in Postmark's webhook URL. */
  postmark?: { username: string; password: string };
  /** The SNS topics whose notifications are taken (their ARNs). */
  ses?: { topicArns: string[] };
  /** An IMAP mailbox that receives bounces and complaints (imaps://user:pass@host:993). */
  mailbox?: BounceMailboxSettings;
}

export interface BounceMailboxSettings {
  url: string;
  /** The folder read (INBOX by default). */
  folder?: string;
  /** What happens to a message once recorded: deleted (the default) or flagged \Seen and left. */
  afterReading?: 'delete' | 'flag';
  /** How often the mailbox is read (60 s by default). */
  everySeconds?: number;
}
