/**
 * The key in an Authorization-style header: `Bearer <key>`, `bearer <key>` (the Java SDK) or
 * the bare key (the original docs' curl examples).
 */
export function keyFromHeader(header: string): string | undefined {
  const value = header.trim();
  const key = /^bearer(\s|$)/i.test(value) ? value.slice(6).trim() : value;
  return key || undefined;
}
