// The signed-in session: kept in sessionStorage (this tab only, gone when it closes), sent as the
// X-Auth-Token header and never put in a URL. No cookie carries it, so no other site's page can
// make the browser act as the user (no CSRF), and a sign-out ends it on the server too.

export interface Session {
  token: string;
  account: string;
  user: string;
  permissions: string[];
}

const KEY = 'herald.session';
let current: Session | null = read();
const listeners = new Set<() => void>();

function read(): Session | null {
  try {
    const raw = sessionStorage.getItem(KEY);
    return raw ? (JSON.parse(raw) as Session) : null;
  } catch {
    return null;
  }
}

export function session(): Session | null {
  return current;
}

/** Why the last session ended: 'expired' when the API refused it (the sign-in page says so). */
let ended: 'expired' | 'signed-out' | null = null;

export function sessionEnded(): 'expired' | 'signed-out' | null {
  return ended;
}

export function setSession(next: Session | null, why: 'expired' | 'signed-out' | null = null): void {
  current = next;
  ended = next ? null : why;
  if (next) sessionStorage.setItem(KEY, JSON.stringify(next));
  else sessionStorage.removeItem(KEY);
  for (const listener of listeners) listener();
}

export function onSessionChange(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/** Whether the signed-in user holds a permission (the API checks again on every call). */
export function can(permission: string): boolean {
  return current?.permissions.includes(permission) ?? false;
}
