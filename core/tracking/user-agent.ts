// The device and mail client of a tracking hit, from its User-Agent header, by ua-parser-js 1
// (MIT; its version 2 is AGPL and is not used). Mail clients send few distinct strings, and a
// parse costs tens of microseconds, so parses are kept by string (a bounded map: a flood of
// invented strings only evicts). Fields it cannot tell are empty strings, never absent: an open
// carries every device field, so a consumer finds the same keys whatever the client.
import UAParser from 'ua-parser-js';

export interface DeviceFields {
  /** Mobile, Tablet, Desktop, Smart TV, Wearable, Console, Embedded, or Unknown. */
  os_class: string;
  os: string;
  os_version: string;
  agent_name: string;
  agent_version: string;
  /** The agent and its major version, `Chrome 124` (a sample of the original's events carries it). */
  agent_name_version: string;
}

const { NAME, VERSION } = UAParser.BROWSER;
/** Desktop mail clients ua-parser-js does not name by itself; tried before its own rules. */
const MAIL_CLIENTS = {
  browser: [
    [/(microsoft outlook)[ /]([\w.]+)/i], [[NAME, 'Outlook'], VERSION],
    [/(thunderbird)\/([\w.]+)/i], [[NAME, 'Thunderbird'], VERSION],
  ],
};

const DEVICE_CLASSES: Record<string, string> = {
  mobile: 'Mobile', tablet: 'Tablet', smarttv: 'Smart TV', wearable: 'Wearable', console: 'Console', embedded: 'Embedded',
};
/** Systems of phones and tablets: without a device type they are taken as phones. */
const HANDHELD_SYSTEMS = new Set(['iOS', 'Android', 'HarmonyOS', 'Windows Phone', 'BlackBerry', 'KaiOS', 'Tizen']);

const parser = new UAParser(undefined, MAIL_CLIENTS);
const MAX_CACHED = 5000;
const cache = new Map<string, DeviceFields>();

/** The device fields of a User-Agent string (cached by string). */
export function deviceOf(userAgent: string): DeviceFields {
  let fields = cache.get(userAgent);
  if (!fields) {
    fields = parseDevice(userAgent);
    if (cache.size >= MAX_CACHED) cache.delete(cache.keys().next().value!);
    cache.set(userAgent, fields);
  }
  return fields;
}

function parseDevice(userAgent: string): DeviceFields {
  const { browser, os, device } = parser.setUA(userAgent).getResult();
  const name = browser.name ?? '';
  const version = browser.version ?? '';
  const major = version.split('.')[0];
  return {
    os_class: osClass(device.type, os.name),
    os: os.name ?? '',
    os_version: os.version ?? '',
    agent_name: name,
    agent_version: version,
    agent_name_version: name && major ? `${name} ${major}` : name,
  };
}

function osClass(deviceType: string | undefined, system: string | undefined): string {
  if (deviceType) return DEVICE_CLASSES[deviceType] ?? 'Unknown';
  if (!system) return 'Unknown';
  return HANDHELD_SYSTEMS.has(system) ? 'Mobile' : 'Desktop';
}
