// The relays file (composition/relays-file.ts): JSON or YAML, every problem named with its place.
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadConfig } from '../../composition/config';
import { checkRelaySettings, describeRelaySettings, readRelaysFile, type RelaySettings } from '../../composition/relays-file';

const sendgridKey = crypto.generateKeyPairSync('ec', { namedCurve: 'prime256v1' }).publicKey.export({ format: 'der', type: 'spki' }).toString('base64');
const example: RelaySettings = {
  relays: [
    { name: 'gmail', url: 'smtps://user:pass@relay-a.example:465', recipientDomains: ['gmail.com', 'googlemail.com'] },
    { name: 'bulk', url: 'smtp://relay-b.example:587', streams: ['campaign'], ratePerSecond: 200, maxConnections: 10 },
    { name: 'main', url: 'smtp://relay-c.example:587' },
  ],
  feedback: {
    mailgun: { signingKey: 'key-0123456789abcdef' }, sendgrid: { publicKey: sendgridKey },
    postmark: { username: 'herald', password: 'correct horse battery' }, ses: { topicArns: ['arn:aws:sns:us-east-1:123456789012:bounces'] },
  },
};
const problemsOf = (value: unknown) => {
  const checked = checkRelaySettings(value);
  return 'problems' in checked ? checked.problems : [];
};
const tempFile = (name: string, text: string) => {
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'relays-')), name);
  fs.writeFileSync(file, text);
  return file;
};

describe('relays file', () => {
  it('takes the example of the docs as it is, JSON or YAML', () => {
    expect(checkRelaySettings(example)).toEqual({ settings: example });
    const yaml = tempFile('relays.yaml', 'relays:\n  - name: main\n    url: smtp://relay.example:587\n    streams: [transactional, system]\n');
    expect(readRelaysFile(yaml)).toEqual({ settings: { relays: [{ name: 'main', url: 'smtp://relay.example:587', streams: ['transactional', 'system'] }], feedback: {} } });
    expect(readRelaysFile(tempFile('relays.json', JSON.stringify(example)))).toEqual({ settings: example });
  });

  it('names every problem with its place in the file', () => {
    const problems = problemsOf({
      relays: [
        { name: 'Main Relay', url: 'http://relay.example', streams: ['newsletter'], ratePerSecond: 0, colour: 'red' },
        { name: 'b', url: 'smtp://b.example', recipientDomains: ['Not A Domain'], maxConnections: 1000 },
        { url: 'smtp://c.example' },
      ],
      feedback: { sendgrid: {}, ses: { topicArns: ['topic'] } },
    });
    expect(problems).toEqual(expect.arrayContaining([
      'relays[0].name must be 1-40 lowercase letters, digits, - or _',
      'relays[0].streams[0] must be one of transactional, campaign, automation, system',
      'relays[0].ratePerSecond must be > 0',
      'relays[0].colour is not a setting of the relays file',
      'relays[1].recipientDomains[0] must be a domain name in lowercase, e.g. example.com',
      'relays[1].maxConnections must be <= 100',
      'relays[2].name is required',
      'feedback.sendgrid.publicKey is required',
      'feedback.ses.topicArns[0] must be an SNS topic ARN, e.g. arn:aws:sns:us-east-1:123456789012:bounces',
    ]));
    expect(problemsOf({ relays: [] })).toEqual(['relays must NOT have fewer than 1 items']);
  });

  it('checks what the schema cannot: URLs, repeated names, the SendGrid key, the mailbox', () => {
    expect(problemsOf({
      relays: [{ name: 'a', url: 'http://relay.example' }, { name: 'a', url: 'not a url' }],
      feedback: { sendgrid: { publicKey: 'bm90IGEga2V5IGF0IGFsbA==' }, mailbox: { url: 'imap://bounces@imap.example' } },
    })).toEqual([
      'relays[0].url (relay "a") must start with smtp:// or smtps://: expected smtp://host:587 or smtps://user:pass@host:465',
      'relays[1].name "a" is used by an earlier relay',
      'relays[1].url (relay "a") is not a URL: expected smtp://host:587 or smtps://user:pass@host:465',
      'feedback.sendgrid.publicKey must be the base64 of a DER public key, as SendGrid shows it',
      'feedback.mailbox.url must start with imaps://: expected imaps://user:password@imap.example.com:993 (TLS only)',
    ]);
  });

  it('is a clear start-up error: unreadable, not JSON nor YAML, or beside SMTP_RELAY_URL', () => {
    expect(() => loadConfig({ HERALD_RELAYS_FILE: '/nowhere/relays.json' })).toThrow(/HERALD_RELAYS_FILE: \/nowhere\/relays.json cannot be read \(ENOENT\)/);
    expect(() => loadConfig({ HERALD_RELAYS_FILE: tempFile('bad.json', '{"relays": [') })).toThrow(/is neither JSON nor YAML/);
    const file = tempFile('relays.json', JSON.stringify(example));
    expect(() => loadConfig({ HERALD_RELAYS_FILE: file, SMTP_RELAY_URL: 'smtp://x.example:25' })).toThrow(/SMTP_RELAY_URL and HERALD_RELAYS_FILE are both set/);
    expect(loadConfig({ HERALD_RELAYS_FILE: file }).relays).toEqual(example);
  });

  it('describes the relays for logs without credentials or secrets', () => {
    const described = JSON.stringify(describeRelaySettings(example));
    expect(described).toContain('"host":"smtps://relay-a.example:465"');
    for (const secret of ['user:pass', 'key-0123456789abcdef', sendgridKey, 'correct horse battery']) expect(described).not.toContain(secret);
  });
});
