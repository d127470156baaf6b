// Providers' webhook requests as each provider makes them, signed with the test's own keys: SNS
// (a signing certificate, and a CA and TLS certificate for a local HTTPS server that answers as
// sns.<region>.amazonaws.com), SendGrid (ECDSA P-256), Mailgun (HMAC-SHA256), Postmark (basic auth).
import { execFileSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';

export const SNS_HOST = 'sns.us-east-1.amazonaws.com';

export interface TestPki {
  /** The CA the test's HTTPS server's certificate is signed by (trusted by the test's HTTPS GET only). */
  ca: string;
  /** The HTTPS server's key and certificate, for SNS_HOST. */
  server: { key: string; cert: string };
  /** The SNS signing certificate and its key. */
  signing: { key: string; cert: string };
}

/** Makes keys and certificates with openssl in a temporary folder. */
export function makeTestPki(): TestPki {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'herald-sns-'));
  const run = (...args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: 'pipe' });
  try {
    run('req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', 'ca.key', '-out', 'ca.pem', '-days', '2', '-subj', '/CN=Herald Test CA');
    run('req', '-newkey', 'rsa:2048', '-nodes', '-keyout', 'server.key', '-out', 'server.csr', '-subj', `/CN=${SNS_HOST}`);
    fs.writeFileSync(path.join(dir, 'ext.cnf'), `subjectAltName=DNS:${SNS_HOST},DNS:sns.eu-west-1.amazonaws.com\n`);
    run('x509', '-req', '-in', 'server.csr', '-CA', 'ca.pem', '-CAkey', 'ca.key', '-CAcreateserial', '-out', 'server.pem', '-days', '2', '-extfile', 'ext.cnf');
    run('req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', 'signing.key', '-out', 'signing.pem', '-days', '2', '-subj', '/CN=sns.amazonaws.com');
    const read = (name: string) => fs.readFileSync(path.join(dir, name), 'utf8');
    return { ca: read('ca.pem'), server: { key: read('server.key'), cert: read('server.pem') }, signing: { key: read('signing.key'), cert: read('signing.pem') } };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** A local HTTPS server answering as SNS: `files` by path; every GET is recorded. */
export async function startFakeSns(pki: TestPki, files: Record<string, string>) {
  const gets: string[] = [];
  const server = https.createServer({ key: pki.server.key, cert: pki.server.cert }, (req, res) => {
    gets.push(req.url ?? '');
    const file = files[new URL(req.url ?? '/', 'https://x').pathname];
    res.writeHead(file === undefined ? (req.url?.includes('Action=ConfirmSubscription') ? 200 : 404) : 200, { 'content-type': 'text/plain' });
    res.end(file ?? '<ConfirmSubscriptionResponse/>');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  /** Herald's HTTPS GET in the test: an SNS host's URL goes to this server, its TLS checked against the test CA for that host. */
  const httpsGet = (url: string) => new Promise<string>((resolve, reject) => {
    const target = new URL(url);
    if (!target.hostname.startsWith('sns.')) {
      reject(new Error(`the test's network reaches no ${target.hostname}`));
      return;
    }
    const request = https.get({
      host: '127.0.0.1', port, path: target.pathname + target.search, servername: target.hostname, ca: pki.ca, headers: { host: target.hostname },
    }, (response) => {
      let body = '';
      response.setEncoding('utf8').on('data', (chunk: string) => { body += chunk; }).on('end', () => {
        if ((response.statusCode ?? 0) >= 300) reject(new Error(`status ${response.statusCode}`));
        else resolve(body);
      });
    });
    request.on('error', reject);
  });
  return { gets, httpsGet, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

/** Fields of an SNS message before its signature. */
export type SnsFields = Record<string, string> & { Type: string; MessageId: string; TopicArn: string; Message: string };

/** An SNS message signed as AWS documents it (the canonical string of its type), as the JSON body SNS posts. */
export function signedSnsMessage(fields: SnsFields, signingKey: string, certUrl: string, version: '1' | '2' = '2'): Record<string, string> {
  const message: Record<string, string> = { Timestamp: new Date().toISOString(), ...fields, SignatureVersion: version, SigningCertURL: certUrl };
  const names = message.Type === 'Notification'
    ? ['Message', 'MessageId', 'Subject', 'Timestamp', 'TopicArn', 'Type']
    : ['Message', 'MessageId', 'SubscribeURL', 'Timestamp', 'Token', 'TopicArn', 'Type'];
  const text = names.filter((name) => message[name] !== undefined).map((name) => `${name}\n${message[name]}\n`).join('');
  message.Signature = crypto.sign(version === '1' ? 'RSA-SHA1' : 'RSA-SHA256', Buffer.from(text), signingKey).toString('base64');
  return message;
}

/** A SendGrid verification key pair: `publicKey` as SendGrid shows it (base64 DER SPKI). */
export function sendgridKeys() {
  const { publicKey, privateKey } = crypto.generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
  return { publicKey: publicKey.export({ format: 'der', type: 'spki' }).toString('base64'), privateKey };
}

/** SendGrid's signature headers for a body. */
export function sendgridHeaders(privateKey: crypto.KeyObject, body: string, timestamp = Math.floor(Date.now() / 1000)): Record<string, string> {
  const signature = crypto.sign('sha256', Buffer.from(`${timestamp}${body}`), privateKey).toString('base64');
  return { 'x-twilio-email-event-webhook-signature': signature, 'x-twilio-email-event-webhook-timestamp': String(timestamp) };
}

/** Mailgun's signature block. */
export function mailgunSignature(signingKey: string, timestamp = Math.floor(Date.now() / 1000), token = crypto.randomBytes(25).toString('hex')) {
  const signature = crypto.createHmac('sha256', signingKey).update(`${timestamp}${token}`).digest('hex');
  return { timestamp: String(timestamp), token, signature };
}

export const basicAuth = (username: string, password: string) => `Basic ${Buffer.from(`${username}:${password}`).toString('base64')}`;
