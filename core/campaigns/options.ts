// A campaign's options as clients send them and as answers show them. Stored under the spec's
// neutral keys (core/campaigns/model.ts); the original's keys are accepted as aliases and shown
// beside the neutral ones, mirroring their values, so the original's clients read what they wrote.
import { errors, fieldError, type FieldError } from '../shared/errors';
import { LAYOUT_OPTIONS, NEUTRAL_OPTIONS, ORIGINAL_OPTION_KEYS, type NeutralOption } from './model';

/** The options that hold a name rather than `1`/`0`. */
const NAME_OPTION: NeutralOption = 'ANALYTICS_CAMPAIGN_NAME';
export const MAX_OPTION_NAME_LENGTH = 100;

const KNOWN_KEYS = [...NEUTRAL_OPTIONS, ...Object.keys(ORIGINAL_OPTION_KEYS), ...LAYOUT_OPTIONS];

/** A new campaign's options: every switch `1`, the analytics name the campaign's; USE_HEADER/USE_FOOTER absent (used). */
export function defaultOptions(campaignName: string): Record<string, string> {
  return Object.fromEntries(NEUTRAL_OPTIONS.map((key) => [key, key === NAME_OPTION ? campaignName : '1']));
}

/** The stored key of a key as sent: an original key's neutral name, or the key itself. */
function storedKey(key: string): string {
  return ORIGINAL_OPTION_KEYS[key] ?? key;
}

/** `1`/`0` from what clients send for a switch: 1/0, true/false, as numbers, booleans or strings. */
function switchValue(value: unknown): '1' | '0' | undefined {
  const text = typeof value === 'string' ? value.trim().toLowerCase() : value;
  if (text === 1 || text === '1' || text === true || text === 'true') return '1';
  if (text === 0 || text === '0' || text === false || text === 'false') return '0';
  return undefined;
}

/**
 * The options a request sets, under their stored keys, checked: known keys only (neutral,
 * original or USE_HEADER/USE_FOOTER), switches `1`/`0`, the analytics name a text. A neutral key
 * and its original alias given with different values are refused (which one was meant?).
 * An empty analytics name means the campaign's name: `campaignName`.
 */
export function readOptions(input: Record<string, unknown>, campaignName: string): Record<string, string> {
  const problems: Record<string, FieldError> = {};
  const set: Record<string, string> = {};
  const givenAs: Record<string, string> = {};
  for (const [key, raw] of Object.entries(input)) {
    const field = `options.${key.slice(0, 50)}`;
    if (!KNOWN_KEYS.includes(key)) {
      problems[field] = fieldError('invalid_value', `Unknown option; known: ${KNOWN_KEYS.join(', ')}`);
      continue;
    }
    const stored = storedKey(key);
    let value: string | undefined;
    if (stored === NAME_OPTION) {
      if (typeof raw !== 'string' && typeof raw !== 'number') problems[field] = fieldError('invalid_value', 'Must be a text');
      else if (String(raw).trim().length > MAX_OPTION_NAME_LENGTH) problems[field] = fieldError('max_length_exceeded', `At most ${MAX_OPTION_NAME_LENGTH} characters`);
      else value = String(raw).trim() || campaignName;
    } else {
      value = switchValue(raw);
      if (value === undefined) problems[field] = fieldError('invalid_value', 'Must be 1 or 0 (true or false)');
    }
    if (value === undefined) continue;
    if (stored in set && set[stored] !== value) {
      problems[field] = fieldError('invalid_value', `Conflicts with options.${givenAs[stored]}, the same option with another value`);
      continue;
    }
    set[stored] = value;
    givenAs[stored] = key;
  }
  if (Object.keys(problems).length > 0) throw errors.validation(problems);
  return set;
}

/** The options as answers show them: the neutral keys, the original aliases with the same values, USE_HEADER/USE_FOOTER when set. */
export function optionsView(options: Record<string, string>): Record<string, string> {
  const view: Record<string, string> = {};
  for (const key of NEUTRAL_OPTIONS) if (options[key] !== undefined) view[key] = options[key];
  for (const [original, neutral] of Object.entries(ORIGINAL_OPTION_KEYS)) if (options[neutral] !== undefined) view[original] = options[neutral];
  for (const key of LAYOUT_OPTIONS) if (options[key] !== undefined) view[key] = options[key];
  return view;
}

/**
 * The options after a change of name: an analytics name that was the old campaign name (the
 * default) follows the new one; one chosen by the client stays.
 */
export function renamedOptions(options: Record<string, string>, oldName: string, newName: string): Record<string, string> {
  return options[NAME_OPTION] === oldName ? { ...options, [NAME_OPTION]: newName } : options;
}
