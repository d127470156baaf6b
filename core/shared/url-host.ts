// Where a URL points, for logs, metrics and the console: relay and mailbox URLs carry credentials
// (smtp://user:password@host:587), so what is shown of them is this and nothing else.

/** protocol//host:port of a URL: never its user, password, path or query. */
export function hostOf(raw: string): string {
  try {
    const url = new URL(raw);
    return `${url.protocol}//${url.host}`;
  } catch {
    return '(unparseable URL)';
  }
}
