import pino from 'pino';

/**
 * JSON logs on stdout (or `dest` 2, stderr; `hooks`: pino's, to leave records out). Secrets never reach them: auth headers and passwords are redacted by path.
 * A line that cannot be written (stdout a file on a full disk, a closed pipe) is dropped: pino's
 * stream would otherwise throw its write error and end the process, so a full log disk took the
 * API, the SMTP listener and the worker down with it (`npm run soak`'s disk episode). Writing
 * resumes with the lines still buffered once the disk has room.
 */
export function createLogger(level: string, name = 'herald', options: { dest?: 1 | 2; hooks?: pino.LoggerOptions['hooks'] } = {}) {
  const destination = pino.destination({ dest: options.dest ?? 1, sync: true });
  destination.on('error', () => undefined);
  return pino({
    name,
    level,
    ...(options.hooks && { hooks: options.hooks }), // pino refuses hooks: undefined
    redact: {
      paths: ['req.headers.authorization', 'headers.authorization', 'password', '*.password', 'apiKey', 'transactionalKey'],
      censor: '[redacted]',
    },
  }, destination);
}

export type Logger = pino.Logger;
