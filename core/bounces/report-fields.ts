// The machine-readable part of a report: `message/delivery-status` (RFC 3464) and
// `message/feedback-report` (RFC 5965) are both header-style fields in groups separated by blank
// lines (a DSN: one group for the message, then one per recipient; an ARF report: one group).
// mailparser hands these parts over as they are (attachments); this reads their fields.

/** One group's fields: lowercase names; a name given twice keeps its first value. */
export type FieldGroup = ReadonlyMap<string, string>;

export function readFieldGroups(text: string): FieldGroup[] {
  const groups: FieldGroup[] = [];
  let fields = new Map<string, string>();
  let last: string | undefined;
  for (const line of text.split(/\r?\n/)) {
    if (line.trim() === '') {
      if (fields.size > 0) groups.push(fields);
      fields = new Map();
      last = undefined;
    } else if (/^[ \t]/.test(line)) {
      // A folded line continues the field before it.
      if (last !== undefined) fields.set(last, `${fields.get(last)} ${line.trim()}`);
    } else {
      const colon = line.indexOf(':');
      if (colon <= 0) continue; // not a field: skipped rather than failing the whole report
      const name = line.slice(0, colon).trim().toLowerCase();
      last = undefined;
      if (fields.has(name)) continue;
      fields.set(name, line.slice(colon + 1).trim());
      last = name;
    }
  }
  if (fields.size > 0) groups.push(fields);
  return groups;
}

/**
 * The address of an address-typed field (`rfc822; ada@example.org`, `<ada@example.org>`), in
 * lowercase; undefined when it names none (another address type, an empty value).
 */
export function addressOfField(value: string | undefined): string | undefined {
  if (!value) return undefined;
  const semicolon = value.indexOf(';');
  if (semicolon >= 0 && !/^\s*(rfc822|utf-8)\s*$/i.test(value.slice(0, semicolon))) return undefined;
  const address = value.slice(semicolon + 1).trim().replace(/^<(.*)>$/, '$1').trim();
  return /^[^\s@<>]+@[^\s@<>]+$/.test(address) ? address.toLowerCase() : undefined;
}
