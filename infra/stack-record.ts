import fs from 'node:fs';
import path from 'node:path';
import type { Config } from '../composition/config';

/**
 * Where `npm start` wrote the addresses of the embedded services it runs for a data folder,
 * so the CLI and separately started processes find them. Ports are chosen at start.
 */
export interface StackRecord {
  pid: number;
  mongodbUri?: string;
  temporalAddress?: string;
  temporalUiUrl?: string;
  smtpRelayUrl?: string;
  mailUiUrl?: string;
  ports?: Record<string, number>;
  /** Process ids of the embedded services (see leftovers.ts). */
  children?: Record<string, number>;
}

const fileOf = (dataDir: string) => path.join(dataDir, 'stack.json');

export function writeStackRecord(dataDir: string, record: StackRecord): void {
  fs.mkdirSync(dataDir, { recursive: true });
  fs.writeFileSync(fileOf(dataDir), `${JSON.stringify(record, null, 2)}\n`);
}

/** The record of a running `npm start` for this data folder, or undefined. */
export function readStackRecord(dataDir: string): StackRecord | undefined {
  const record = readRecordFile(dataDir);
  return record && record.pid > 0 && isAlive(record.pid) ? record : undefined;
}

/** Marks the stack stopped; its ports stay recorded so the next start can reuse them. */
export function markStackStopped(dataDir: string): void {
  const record = readRecordFile(dataDir);
  if (record) writeStackRecord(dataDir, { pid: 0, ports: record.ports });
}

/** The record as the last start left it, running or not (ports to reuse, leftovers to end). */
export function readRecordFile(dataDir: string): StackRecord | undefined {
  try {
    return JSON.parse(fs.readFileSync(fileOf(dataDir), 'utf8')) as StackRecord;
  } catch {
    return undefined;
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/**
 * The configuration with the addresses it leaves unset taken from a running `npm start` of the
 * same data folder (its embedded store, Temporal and mail sink), so separately started processes
 * and the CLI find them. What is still unset stays unset: the composition root names it when a
 * part needs it.
 */
export function withStackAddresses(config: Config): Config {
  const record = readStackRecord(config.dataDir);
  return {
    ...config,
    mongodbUri: config.mongodbUri ?? record?.mongodbUri,
    temporalAddress: config.temporalAddress ?? record?.temporalAddress,
    temporalUiUrl: config.temporalUiUrl ?? (config.temporalAddress ? undefined : record?.temporalUiUrl),
    smtpRelayUrl: config.smtpRelayUrl ?? record?.smtpRelayUrl,
  };
}
