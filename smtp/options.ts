// The SMTP listener's options from the configuration, written once for every way Herald starts it
// (npm start, the SMTP process of a deployment).
import fs from 'node:fs';
import type { Config } from '../composition/config';
import type { SmtpOptions } from './server';

export function smtpOptionsFrom(config: Config): Partial<SmtpOptions> {
  const read = (file: string, what: string) => {
    try {
      return fs.readFileSync(file);
    } catch (error) {
      throw new Error(`Cannot read the SMTP TLS ${what} ${file}: ${(error as Error).message}`);
    }
  };
  return {
    ...(config.smtpTlsKeyFile && config.smtpTlsCertFile
      ? { tls: { key: read(config.smtpTlsKeyFile, 'key (HERALD_SMTP_TLS_KEY)'), cert: read(config.smtpTlsCertFile, 'certificate (HERALD_SMTP_TLS_CERT)') } }
      : {}),
    requireTls: config.smtpRequireTls,
    maxClients: config.smtpMaxClients,
    maxClientsPerAddress: config.smtpMaxClientsPerAddress,
    bounceDomain: config.bounceDomain,
  };
}
