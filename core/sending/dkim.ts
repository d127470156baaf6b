// DKIM keys of the account's sender domains, and the signing options of a message from one.
// One key per domain: Herald makes an RSA 2048 key pair, or takes a private key an operator
// already published. The private key is kept to sign and never shown again; the public key and
// the DNS record to publish are. Mail from a domain with a key is signed (nodemailer's DKIM
// signer, relaxed/relaxed, rsa-sha256); mail from any other domain goes out unsigned.
import { createPrivateKey, createPublicKey, generateKeyPairSync, type KeyObject } from 'node:crypto';
import type DKIM from 'nodemailer/lib/dkim';
import { nextId } from '../../adapters/store/counters';
import { errors, fieldError } from '../shared/errors';
import { isDuplicateKey, type DkimKeyDoc, type Store } from '../../adapters/store/store';

export interface DkimKeyInput { domain: string; selector: string; privateKey?: string }

/** What the API shows of a key: never the private key. */
export function dkimKeyView(key: DkimKeyDoc) {
  return {
    id: key.id,
    domain: key.domain,
    selector: key.selector,
    publicKey: key.publicKey,
    dnsRecord: { name: `${key.selector}._domainkey.${key.domain}`, type: 'TXT', value: `v=DKIM1; k=rsa; p=${key.publicKey}` },
    created: key.created.toISOString(),
  };
}

/** The private key as given (PEM, RSA of 1024 to 4096 bits), or a VALIDATION_ERROR on `privateKey`. */
function readPrivateKey(pem: string): KeyObject {
  let key: KeyObject;
  try {
    key = createPrivateKey(pem);
  } catch {
    throw errors.validation({ privateKey: fieldError('invalid_value', 'Not a PEM private key') });
  }
  const bits = key.asymmetricKeyDetails?.modulusLength ?? 0;
  if (key.asymmetricKeyType !== 'rsa' || bits < 1024 || bits > 4096) {
    throw errors.validation({ privateKey: fieldError('invalid_value', 'An RSA key of 1024 to 4096 bits is needed (DKIM rsa-sha256)') });
  }
  return key;
}

/** Adds the domain's key (made here unless one is given); 409 RESOURCE_EXISTS when the domain has one. */
export async function createDkimKey(store: Store, account: string, input: DkimKeyInput): Promise<DkimKeyDoc> {
  const domain = input.domain.toLowerCase();
  const privateKey = input.privateKey ? readPrivateKey(input.privateKey) : generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey;
  const id = await nextId(store, account, 'dkimKeys');
  const key: DkimKeyDoc = {
    _id: `${account}:${id}`,
    account,
    id,
    domain,
    selector: input.selector,
    privateKey: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
    publicKey: createPublicKey(privateKey).export({ type: 'spki', format: 'der' }).toString('base64'),
    created: new Date(),
  };
  try {
    await store.dkimKeys.insertOne(key);
  } catch (error) {
    if (!isDuplicateKey(error)) throw error;
    throw errors.conflict(`The domain ${domain} has a DKIM key already: delete it first to replace it`,
      { domain: fieldError('invalid_value', 'This domain has a DKIM key already') });
  }
  return key;
}

export function findDkimKeys(store: Store, account: string): Promise<DkimKeyDoc[]> {
  return store.dkimKeys.find({ account }).sort({ id: 1 }).limit(1000).toArray();
}

export function findDkimKey(store: Store, account: string, id: number): Promise<DkimKeyDoc | null> {
  return store.dkimKeys.findOne({ _id: `${account}:${id}`, account });
}

export async function deleteDkimKey(store: Store, account: string, id: number): Promise<boolean> {
  return (await store.dkimKeys.deleteOne({ _id: `${account}:${id}`, account })).deletedCount > 0;
}

/** nodemailer's signing options for mail of the account from `fromAddress`, when its domain has a key. */
export async function dkimSigningFor(store: Store, account: string, fromAddress: string): Promise<DKIM.SingleKeyOptions | undefined> {
  const domain = fromAddress.slice(fromAddress.lastIndexOf('@') + 1).toLowerCase();
  const key = await store.dkimKeys.findOne({ account, domain });
  return key ? { domainName: key.domain, keySelector: key.selector, privateKey: key.privateKey, headerFieldNames: SIGNED_HEADERS } : undefined;
}

/**
 * nodemailer's default list (RFC 4871 5.5) plus List-Unsubscribe-Post: RFC 8058 wants both
 * unsubscribe headers under the signature, and mailbox providers honour one-click only then.
 */
const SIGNED_HEADERS = 'From:Sender:Reply-To:Subject:Date:Message-ID:To:Cc:MIME-Version:Content-Type:Content-Transfer-Encoding:Content-ID:'
  + 'Content-Description:Resent-Date:Resent-From:Resent-Sender:Resent-To:Resent-Cc:Resent-Message-ID:In-Reply-To:References:'
  + 'List-Id:List-Help:List-Unsubscribe:List-Unsubscribe-Post:List-Subscribe:List-Post:List-Owner:List-Archive';
