// Revives a MongoDB client whose server monitoring stopped. The chaos soak (docs/soak.md) saw it
// twice, after the embedded store died mid-commit on a full disk: one process's client kept its
// server Unknown and ran no heartbeat again, so every operation failed server selection for as
// long as the process lived, while the store was back and every other process used it.
//
// The driver checks its server at least every heartbeatFrequencyMS (10 s) and emits an event for
// each check. A client whose server has been Unknown and has not checked it for `stallMs` is
// stuck: it is closed and connected again. Its Db and Collection objects stay valid (each
// operation reaches the client's current topology); operations in flight then fail, as they
// already did.
import type { MongoClient } from 'mongodb';

/** Where the watchdog tells what it did (Herald's logger). */
export interface WatchdogLogger { warn(details: object, message: string): void }

export interface WatchdogOptions {
  /** How long a server may go Unknown with no check before the client is revived (60 s: six missed heartbeats). */
  stallMs?: number;
  /** How often the watchdog looks. */
  everyMs?: number;
  /** Where a revival, and a connect that failed (tried again at the next look), are told. */
  logger?: WatchdogLogger;
}

export interface Watchdog {
  /** Revivals so far. */
  revivals(): number;
  stop(): void;
}

const HEARTBEAT_EVENTS = ['serverHeartbeatStarted', 'serverHeartbeatSucceeded', 'serverHeartbeatFailed'] as const;

export function watchClient(client: MongoClient, options: WatchdogOptions = {}): Watchdog {
  const stallMs = options.stallMs ?? 60_000;
  let lastCheck = Date.now();
  let unknownSince: number | undefined;
  /** A revival whose connect failed: connected again at the next look. */
  let disconnected = false;
  let busy = false;
  let revivals = 0;

  const checked = () => { lastCheck = Date.now(); };
  for (const event of HEARTBEAT_EVENTS) client.on(event, checked);
  const described = (event: { newDescription: { type: string } }) => {
    if (event.newDescription.type !== 'Unknown') unknownSince = undefined;
    else unknownSince ??= Date.now();
  };
  client.on('serverDescriptionChanged', described);

  const look = async () => {
    const now = Date.now();
    const stuck = unknownSince !== undefined && now - unknownSince >= stallMs && now - lastCheck >= stallMs;
    if (busy || (!stuck && !disconnected)) return;
    busy = true;
    try {
      if (!disconnected) {
        options.logger?.warn({ unknownForMs: now - (unknownSince ?? now), lastCheckAgoMs: now - lastCheck }, 'the store client stopped checking its server: connecting it again');
        revivals += 1;
        disconnected = true;
        await client.close();
      }
      unknownSince = undefined;
      lastCheck = Date.now();
      await client.connect();
      disconnected = false;
    } catch (error) {
      options.logger?.warn({ err: error }, 'the store client could not connect again: trying again shortly');
    } finally {
      busy = false;
    }
  };
  const timer = setInterval(() => void look(), options.everyMs ?? 5000);
  timer.unref();

  return {
    revivals: () => revivals,
    stop() {
      clearInterval(timer);
      for (const event of HEARTBEAT_EVENTS) client.off(event, checked);
      client.off('serverDescriptionChanged', described);
    },
  };
}
