import fs from 'node:fs';
import path from 'node:path';
import { startChild, tailOf, type ChildExit } from './child';
import { freePort, isListening, waitForPort } from './ports';

export interface MailSinkOptions {
  /** Where maildev keeps each message as an .eml file; messages found there are reloaded on start. */
  dir: string;
  smtpPort?: number;
  webPort?: number;
  logFile: string;
}

export interface MailSink {
  /** Process id, recorded so a later start can end what a crashed one left running. */
  pid: number;
  smtpPort: number;
  webPort: number;
  /** Give this to Herald as SMTP_RELAY_URL. */
  smtpUrl: string;
  /** maildev's web UI, and its REST API (`GET /email`). */
  webUrl: string;
  stop(): Promise<void>;
  /** Settles when the process ends, for whatever reason (supervision). */
  exited: Promise<ChildExit>;
}

const HOST = '127.0.0.1';
const START_TIMEOUT_MS = 30000;

/**
 * Starts maildev 2 as the embedded catch-all for outgoing mail: an SMTP port that accepts
 * everything, a web UI where a person reads it, and nothing relayed anywhere.
 */
export async function startMailSink(opts: MailSinkOptions): Promise<MailSink> {
  const dir = path.resolve(opts.dir);
  // maildev creates only the last path segment itself.
  fs.mkdirSync(dir, { recursive: true });
  const smtpPort = opts.smtpPort ?? (await freePort(HOST));
  const webPort = opts.webPort ?? (await freePort(HOST));
  // Otherwise another process on a requested port would pass for this maildev.
  for (const port of [smtpPort, webPort]) {
    if (await isListening(HOST, port)) throw new Error(`mail sink: port ${HOST}:${port} is already in use`);
  }

  const child = startChild({
    name: 'maildev',
    command: process.execPath,
    args: [
      require.resolve('maildev/bin/maildev'),
      // Both addresses are needed: maildev binds every interface (::) otherwise.
      '--ip', HOST,
      '--web-ip', HOST,
      '--smtp', String(smtpPort),
      '--web', String(webPort),
      '--mail-directory', dir,
    ],
    env: withoutMaildevSettings(process.env),
    logFile: opts.logFile,
  });

  // Fail fast, with maildev's own words, if it exits instead of listening.
  let onExit: (() => void) | undefined;
  const exited = new Promise<never>((_resolve, reject) => {
    onExit = () => reject(new Error(`maildev exited during start-up (exit code ${child.process.exitCode})`));
    child.process.once('exit', onExit);
    child.process.once('error', onExit);
  });
  exited.catch(() => undefined);
  try {
    await Promise.race([
      Promise.all([
        waitForPort(HOST, smtpPort, START_TIMEOUT_MS, 'maildev SMTP'),
        waitForPort(HOST, webPort, START_TIMEOUT_MS, 'maildev web'),
      ]),
      exited,
    ]);
  } catch (err) {
    await child.stop(2000);
    const message = err instanceof Error ? err.message : String(err);
    throw new Error(`${message}\nmaildev log (${opts.logFile}):\n${tailOf(opts.logFile)}`);
  } finally {
    if (onExit) {
      child.process.off('exit', onExit);
      child.process.off('error', onExit);
    }
  }

  return {
    smtpPort,
    webPort,
    smtpUrl: `smtp://${HOST}:${smtpPort}`,
    webUrl: `http://${HOST}:${webPort}`,
    // maildev closes both servers on SIGTERM; messages are already on disk.
    pid: child.process.pid ?? 0,
    stop: () => child.stop(5000),
    exited: child.exited,
  };
}

/**
 * maildev reads a MAILDEV_* variable as the default of each option, so an inherited
 * MAILDEV_OUTGOING_HOST or MAILDEV_AUTO_RELAY would turn the sink into a relay.
 */
function withoutMaildevSettings(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const clean: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(env)) {
    if (!key.startsWith('MAILDEV_')) clean[key] = value;
  }
  return clean;
}
