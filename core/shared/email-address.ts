// The email address syntax Herald accepts everywhere: the dot-atom form of RFC 5322 that the
// HTTP API's schemas check (ajv-formats' `email`), so SMTP takes exactly what HTTP takes.
import { fullFormats } from 'ajv-formats/dist/formats';

const EMAIL = fullFormats.email as RegExp;

export const MAX_EMAIL_LENGTH = 320;

export function isEmailAddress(value: string): boolean {
  return value.length <= MAX_EMAIL_LENGTH && EMAIL.test(value);
}
