import pino from 'pino';

/** JSON logs. Secrets never reach them: auth headers and passwords are redacted by path. */
export function createLogger(level: string, name = 'herald') {
  return pino({
    name,
    level,
    redact: {
      paths: ['req.headers.authorization', 'headers.authorization', 'password', '*.password', 'apiKey', 'transactionalKey'],
      censor: '[redacted]',
    },
  });
}

export type Logger = pino.Logger;
