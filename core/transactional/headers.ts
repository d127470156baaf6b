// Which extra headers a client may set on a transactional message. Address, MIME, routing
// and signature headers decide who receives a message and how it is read, so only `X-`
// headers and a short list of informational ones pass; names are matched case-blind.

/** Informational headers a client may set besides any `X-…` header. */
export const ALLOWED_HEADERS = ['List-Id', 'List-Help', 'List-Archive', 'List-Owner', 'List-Post', 'References', 'In-Reply-To', 'Keywords', 'Comments'];

const allowed = new Set(ALLOWED_HEADERS.map((name) => name.toLowerCase()));

/** RFC 5322 field name: printable ASCII except colon (so never CR, LF or space). */
const FIELD_NAME = /^[!-9;-~]+$/;

export function isAllowedCustomHeader(name: string): boolean {
  if (!FIELD_NAME.test(name)) return false;
  const lower = name.toLowerCase();
  return (lower.startsWith('x-') && lower.length > 2) || allowed.has(lower);
}
