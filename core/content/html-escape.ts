// Escaping for the HTML Herald writes itself (the hosted opt-in's pages and its confirmation
// mail). Every value that is not a literal of Herald's source goes through escapeHtml, in text
// and in double-quoted attributes alike: list names, addresses and tokens come from users.

const ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

export function escapeHtml(value: string | number): string {
  return String(value).replace(/[&<>"']/g, (c) => ENTITIES[c]);
}

/** One line of plain text: control characters (CR and LF among them) become spaces. For mail headers. */
export function oneLine(value: string): string {
  // eslint-disable-next-line no-control-regex -- control characters are exactly what is removed
  return value.replace(/[\u0000-\u001f\u007f]+/g, ' ').trim();
}
