// What a create or a PUT of an automation gives, made into the fields stored. The API's schema
// has checked types and lengths; the rules between fields are here: each step's own fields,
// a single-line subject, exactly one of html and mjml, every template compiling in the dialect
// (errors name the step's field and the template's line), MJML compiled once, here, and each
// wait's duration read into seconds. Every problem of the request is reported at once.
import { AppError, errors, fieldError, type FieldError } from '../shared/errors';
import { isEmailAddress } from '../shared/email-address';
import type { AutomationDoc, AutomationEmailStep, AutomationStep, AutomationTrigger } from '../../adapters/store/store';
import { compileMjml } from '../content/mjml';
import { templateErrors } from '../content/personalise';
import { MAX_CONTENT_BODY_BYTES } from '../campaigns/content-record';
import { TRIGGER_KEY } from '../triggers/event';
import { parseWaitDuration } from './duration';

export const MAX_STEPS = 50;
export const MAX_SUBJECT_LENGTH = 998;
export const TRIGGER_TYPES = ['custom'] as const;

/** A step as the schema let it through: the type, and any of the fields of both types. */
export interface StepInput {
  type: AutomationStep['type'];
  subject?: string; from?: string; fromName?: string; replyTo?: string; html?: string; mjml?: string; text?: string;
  duration?: string;
}

export interface AutomationInput {
  name?: string;
  comments?: string;
  tags?: string[];
  trigger?: { type: string; key: string };
  steps?: StepInput[];
}

/** The fields a client sets; what a PUT may change. */
export type AutomationFields = Pick<AutomationDoc, 'name' | 'comments' | 'tags' | 'trigger' | 'steps'>;

type Problems = Record<string, FieldError>;

const EMAIL_FIELDS = ['subject', 'from', 'fromName', 'replyTo', 'html', 'mjml', 'text'] as const;
const oneLine = (text: string) => !/[\r\n]/.test(text);
const tooBig = (text: string) => Buffer.byteLength(text, 'utf8') > MAX_CONTENT_BODY_BYTES;

/** The given fields, checked and made into what is stored; VALIDATION_ERROR naming every bad field. */
export async function readAutomationInput(input: AutomationInput): Promise<Partial<AutomationFields>> {
  const problems: Problems = {};
  const fields: Partial<AutomationFields> = {};
  if (input.name !== undefined) fields.name = input.name.trim();
  if (input.comments !== undefined) fields.comments = input.comments;
  if (input.tags !== undefined) fields.tags = [...new Set(input.tags)];
  if (input.trigger !== undefined) {
    const trigger = readTrigger(input.trigger, problems);
    if (trigger) fields.trigger = trigger;
  }
  if (input.steps !== undefined) fields.steps = await readSteps(input.steps, problems);
  if (Object.keys(problems).length > 0) throw errors.validation(problems);
  return fields;
}

function readTrigger(given: { type: string; key: string }, problems: Problems): AutomationTrigger | undefined {
  if (!(TRIGGER_TYPES as readonly string[]).includes(given.type)) problems['trigger.type'] = fieldError('invalid_value', `Must be one of: ${TRIGGER_TYPES.join(', ')}`);
  if (!TRIGGER_KEY.test(given.key)) problems['trigger.key'] = fieldError('invalid_value', 'Lowercase letters, digits and underscore, 1 to 30 characters');
  return problems['trigger.type'] || problems['trigger.key'] ? undefined : { type: 'custom', key: given.key };
}

async function readSteps(steps: StepInput[], problems: Problems): Promise<AutomationStep[]> {
  if (steps.length > MAX_STEPS) {
    problems.steps = fieldError('too_many_items', `At most ${MAX_STEPS} steps`);
    return [];
  }
  const read: AutomationStep[] = [];
  for (const [index, step] of steps.entries()) {
    const at = `steps[${index}]`;
    const own: Problems = {};
    const value = step.type === 'wait' ? readWait(step, at, own) : await readEmail(step, at, own);
    Object.assign(problems, own);
    if (value) read.push(value);
  }
  return read;
}

function readWait(step: StepInput, at: string, problems: Problems): AutomationStep | undefined {
  for (const field of EMAIL_FIELDS) if (step[field] !== undefined) problems[`${at}.${field}`] = fieldError('invalid_value', 'Only for email steps');
  if (step.duration === undefined || step.duration.trim() === '') {
    problems[`${at}.duration`] = fieldError('required', 'A wait step needs a duration (ISO 8601: P2D, PT3H, P1W)');
    return undefined;
  }
  const duration = step.duration.trim();
  const parsed = parseWaitDuration(duration);
  if ('problem' in parsed) problems[`${at}.duration`] = fieldError('invalid_value', parsed.problem);
  return 'seconds' in parsed ? { type: 'wait', duration, seconds: parsed.seconds } : undefined;
}

/** An email step's fields; its MJML compiled and its templates checked once the rest is valid. */
async function readEmail(step: StepInput, at: string, problems: Problems): Promise<AutomationStep | undefined> {
  const required = (field: string, message: string) => { problems[`${at}.${field}`] = fieldError('required', message); };
  const invalid = (field: string, message: string) => { problems[`${at}.${field}`] = fieldError('invalid_value', message); };
  if (step.duration !== undefined) invalid('duration', 'Only for wait steps');
  const { subject, html, mjml, text } = step;
  if (subject === undefined || subject.trim() === '') required('subject', 'An email step needs a subject');
  else if (!oneLine(subject)) invalid('subject', 'One line: no CR or LF');
  const from = step.from?.trim();
  if (!from) required('from', 'An email step needs a sender address (from)');
  else if (!isEmailAddress(from)) invalid('from', 'Invalid email address');
  const replyTo = step.replyTo?.trim() || undefined;
  if (replyTo !== undefined && !isEmailAddress(replyTo)) invalid('replyTo', 'Invalid email address');
  if (step.fromName !== undefined && !oneLine(step.fromName)) invalid('fromName', 'One line: no CR or LF');
  const given = { html: html !== undefined && html.trim() !== '', mjml: mjml !== undefined && mjml.trim() !== '' };
  if (!given.html && !given.mjml) required('html', 'An email step needs its content: html or mjml');
  else if (given.html && given.mjml) invalid('mjml', 'Give html or mjml, not both');
  for (const field of ['html', 'mjml', 'text'] as const) {
    const value = step[field];
    if (value !== undefined && tooBig(value)) problems[`${at}.${field}`] = fieldError('max_length_exceeded', `At most ${MAX_CONTENT_BODY_BYTES / 1024 / 1024} MB (UTF-8)`);
  }
  if (Object.keys(problems).length > 0) return undefined;

  const source = given.mjml ? mjml! : html!;
  const textPart = text !== undefined && text.trim() !== '' ? text : undefined;
  // The source's own lines first (what the client wrote), then MJML's output (what is sent).
  if (!checkTemplates(subject!, source, textPart, at, given.mjml ? 'mjml' : 'html', problems)) return undefined;
  let compiled = source;
  if (given.mjml) {
    try {
      compiled = await compileMjml(source, `${at}.mjml`);
    } catch (error) {
      if (!(error instanceof AppError) || !error.extra.fields) throw error;
      Object.assign(problems, error.extra.fields);
      return undefined;
    }
    const compiledProblems = templateErrors({ content: { html: compiled } });
    if (compiledProblems['content.html']) invalid('mjml', `In the HTML compiled from the MJML: ${compiledProblems['content.html']}`);
    if (Object.keys(problems).length > 0) return undefined;
  }
  const email: AutomationEmailStep = {
    type: 'email', subject: subject!, from: from!, fromName: step.fromName ?? '',
    ...(replyTo !== undefined ? { replyTo } : {}),
    ...(given.mjml ? { mjml } : {}),
    html: compiled,
    ...(textPart !== undefined ? { text: textPart } : {}),
  };
  return email;
}

/** Whether the subject, the content and the text compile in the dialect; else a problem on each field that does not. */
function checkTemplates(subject: string, content: string, text: string | undefined, at: string, contentField: 'html' | 'mjml', problems: Problems): boolean {
  const found = templateErrors({ subject, content: { html: content, ...(text !== undefined ? { text } : {}) } });
  const names: Record<string, string> = { subject: 'subject', 'content.html': contentField, 'content.text': 'text' };
  for (const [field, message] of Object.entries(found)) problems[`${at}.${names[field]}`] = fieldError('invalid_value', message);
  return Object.keys(found).length === 0;
}
