// The values of one import cell, checked and shaped as the API would store them: email
// addresses by the very rule the API validates with (ajv-formats' email format, 254 characters,
// trimmed and lower-cased), names in Title Case on request, dates of a given format as ISO dates.
import { fullFormats } from 'ajv-formats/dist/formats';
import type { ContactDoc } from '../../../adapters/store/store';

const EMAIL = fullFormats.email as RegExp;

/** The address as stored (trimmed, lower case), or null when the API would refuse it. */
export function importEmail(value: string): string | null {
  const email = value.trim();
  if (email === '' || [...email].length > 254 || !EMAIL.test(email)) return null;
  return email.toLowerCase();
}

/** "mary-jane  O'NEIL" → "Mary-Jane O'Neil". */
export function titleCase(name: string): string {
  return name.toLocaleLowerCase().replace(/\s+/g, ' ').replace(/(^|[\s'’.-])(\p{L})/gu, (_m, before: string, letter: string) => before + letter.toLocaleUpperCase());
}

export function importGender(value: string): ContactDoc['gender'] | null {
  const v = value.trim().toLowerCase();
  return v === 'm' || v === 'male' ? 'M' : v === 'f' || v === 'female' ? 'F' : null;
}

const LANGUAGES = new Set(['de', 'en', 'es', 'fr', 'it', 'pt']);
/** `es`, `ES` or `es-AR` → `es`; null for a language the contact record does not know. */
export function importLanguage(value: string): ContactDoc['language'] | null {
  const match = /^([a-z]{2})(?:[-_][a-z]{2})?$/i.exec(value.trim());
  const language = match?.[1].toLowerCase();
  return language && LANGUAGES.has(language) ? (language as ContactDoc['language']) : null;
}

export function importPreferredFormat(value: string): ContactDoc['preferredFormat'] | null {
  const v = value.trim().toUpperCase();
  return v === 'HTML' ? 'HTML' : v === 'TEXT' || v === 'TXT' ? 'TEXT' : null;
}

/** Interest names of one cell: separated by `,`, `|` or `;`, trimmed, each once. */
export function interestNames(value: string): string[] {
  return [...new Set(value.split(/[,|;]/).map((n) => n.trim()).filter((n) => n !== ''))];
}

const TOKEN = /d{1,2}|m{1,2}|y{4}|y{2}/gi;

/** Whether a dateFormat is usable: day, month and year once each, separated by `/`, `-`, `.` or spaces. */
export function isDateFormat(format: string): boolean {
  if (!/^[dmy/.\- ]{2,20}$/i.test(format)) return false;
  const tokens = (format.match(TOKEN) ?? []).map((t) => t[0].toLowerCase());
  return tokens.length === 3 && new Set(tokens).size === 3 && format.replace(TOKEN, '').split('').every((c) => '/.- '.includes(c));
}

/**
 * A parser of dates written in `format` (`dd/mm/yyyy`, `m-d-yy`, … any letter case; one or two
 * digits for days and months): the date as `yyyy-mm-dd`, or null. Two-digit years up to this
 * year's are 20yy, later ones 19yy.
 */
export function dateParser(format: string): (value: string) => string | null {
  const order: string[] = [];
  const pattern = format.replace(/[.]/g, '\\.').replace(TOKEN, (token) => {
    order.push(token[0].toLowerCase() + (token.length === 2 && token[0].toLowerCase() === 'y' ? '2' : ''));
    return token.toLowerCase().startsWith('y') ? `(\\d{${token.length}})` : '(\\d{1,2})';
  });
  const regex = new RegExp(`^${pattern}$`);
  const thisYear = new Date().getUTCFullYear() % 100;
  return (value) => {
    const match = regex.exec(value.trim());
    if (!match) return null;
    const parts: Record<string, number> = {};
    order.forEach((token, i) => { parts[token] = Number(match[i + 1]); });
    const year = parts.y ?? (parts.y2 <= thisYear ? 2000 + parts.y2 : 1900 + parts.y2);
    return isoDate(year, parts.m, parts.d);
  };
}

function isoDate(year: number, month: number, day: number): string | null {
  const date = new Date(Date.UTC(year, month - 1, day));
  if (date.getUTCFullYear() !== year || date.getUTCMonth() !== month - 1 || date.getUTCDate() !== day) return null;
  return `${String(year).padStart(4, '0')}-${String(month).padStart(2, '0')}-${String(day).padStart(2, '0')}`;
}
