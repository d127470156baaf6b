// Which field a column of an import holds, from its header: the built-in fields under the names
// people and other tools give them (English and Spanish, the original's clients' languages),
// the names Herald's own export writes (core/contacts/export.ts), and custom fields by name or tag.
// Names are compared folded: lower case, accents dropped, only letters and digits kept.
import type { FieldDoc } from '../../../adapters/store/store';

/** What a header names: a field id (1–5, 7, ≥10), the interest column, or a column to skip (0). */
export type HeaderMeaning = { field: number } | { interests: true };

/** "Correo electrónico" → "correoelectronico". */
export function foldName(name: string): string {
  return name.normalize('NFD').replace(/\p{M}/gu, '').toLowerCase().replace(/[^a-z0-9]/g, '');
}

const SYNONYMS: Array<[HeaderMeaning, string[]]> = [
  [{ field: 3 }, ['email', 'e-mail', 'mail', 'email address', 'e-mail address', 'correo', 'correo electronico', 'direccion de correo', 'emailaddress']],
  [{ field: 1 }, ['firstName', 'first name', 'first', 'name', 'given name', 'nombre', 'nombres', 'primer nombre', 'nome', 'prenom']],
  [{ field: 2 }, ['lastName', 'last name', 'last', 'surname', 'family name', 'apellido', 'apellidos', 'sobrenome', 'nom']],
  [{ field: 4 }, ['gender', 'sex', 'genero', 'sexo']],
  [{ field: 5 }, ['language', 'lang', 'idioma', 'lengua']],
  [{ field: 7 }, ['preferredFormat', 'preferred format', 'format', 'formato']],
  [{ interests: true }, ['interests', 'interest', 'intereses', 'interes']],
  // The export's own columns an import does not write: skipped, never guessed as something else.
  [{ field: 0 }, ['id', 'state', 'source', 'quality', 'created', 'lastModified', 'lists']],
];
const BY_NAME = new Map(SYNONYMS.flatMap(([meaning, names]) => names.map((n) => [foldName(n), meaning] as const)));

/**
 * The meaning of each header. A custom field whose name is exactly the header wins (an export
 * writes custom fields by name); then the built-in names; then custom fields by folded name or
 * tag. A field goes to its first column only; unknown headers are skipped.
 */
export function meaningsOfHeaders(headers: string[], customFields: FieldDoc[]): Array<HeaderMeaning | null> {
  const exact = new Map(customFields.map((f) => [f.name.trim().toLowerCase(), f.id]));
  const folded = new Map<string, number>();
  for (const f of customFields) {
    folded.set(foldName(f.tag), f.id);
    if (!folded.has(foldName(f.name))) folded.set(foldName(f.name), f.id);
  }
  const taken = new Set<number | 'interests'>();
  return headers.map((header) => {
    const customId = exact.get(header.trim().toLowerCase());
    const meaning: HeaderMeaning | undefined = customId !== undefined ? { field: customId }
      : BY_NAME.get(foldName(header)) ?? (folded.has(foldName(header)) ? { field: folded.get(foldName(header))! } : undefined);
    if (!meaning) return null;
    const key = 'interests' in meaning ? 'interests' : meaning.field;
    if (key !== 0 && taken.has(key)) return null;
    taken.add(key);
    return meaning;
  });
}
