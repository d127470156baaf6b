// The endpoints under fuzz, each with its input generator and the rules its answers must keep.
// Every endpoint a later issue adds joins this list.
import type fc from 'fast-check';
import {
  mutatedForm, mutatedJson, mutatedSendBody, validContactUpdate, validExport, validLogin, validNewContact, validNewField, validNewInterest, validNewList,
  validNewUser, validOptinSubmit, type FuzzContext,
} from './arbitraries';
import { validImport } from './import-arbitraries';

export interface FuzzTarget {
  name: string;
  method: string;
  /** The path, given the fuzzing account's name. */
  path: (account: string) => string;
  contentType: string;
  /** Which credential the request carries. */
  auth: 'none' | 'transactional' | 'api';
  body: (known: FuzzContext) => fc.Arbitrary<string>;
  /** Problems with one answer (empty when it keeps the interface's rules). */
  checkAnswer(status: number, json: unknown): string[];
}

const TRANSACTIONAL_TYPES = new Set(['bad_request', 'validation_error', 'unauthorized', 'forbidden', 'not_found', 'method_not_allowed', 'payload_too_large']);
const VALIDATION_CODES = new Set(['required', 'required_at_least_one', 'max_length_exceeded', 'too_many_items', 'invalid_value']);
const ACCOUNT_TYPES = new Set(['BAD_REQUEST', 'VALIDATION_ERROR', 'UNAUTHORIZED', 'FORBIDDEN', 'NOT_FOUND', 'METHOD_NOT_ALLOWED',
  'RESOURCE_EXISTS', 'UNSUPPORTED_MEDIA_TYPE', 'PAYLOAD_TOO_LARGE', 'ACCOUNT_REQUIRED', 'PASSWORD_EXPIRED']);

/** The transactional API's success and error shapes (interface-spec "Errors / Transactional HTTP API"). */
function checkTransactionalAnswer(status: number, json: unknown): string[] {
  const body = json as { success?: unknown; data?: unknown; error?: Record<string, unknown> };
  if (status === 202) return body.success === true && body.data === '' && Object.keys(body).length === 2 ? [] : ['202 body is not {success:true,data:""}'];
  const problems: string[] = [];
  const error = body.error;
  if (body.success !== false || typeof error !== 'object' || error === null) return ['error answer without {success:false,error}'];
  if (error.status !== status) problems.push(`error.status ${String(error.status)} differs from HTTP ${status}`);
  if (!TRANSACTIONAL_TYPES.has(String(error.type))) problems.push(`unexpected error.type ${String(error.type)}`);
  if (typeof error.message !== 'string' || error.message === '') problems.push('error.message missing');
  if (error.errors !== undefined) {
    if (error.type !== 'validation_error') problems.push('errors on a non-validation error');
    const codes = Object.values(error.errors as object);
    if (codes.length === 0 || codes.some((c) => !VALIDATION_CODES.has(c))) problems.push(`bad validation codes ${JSON.stringify(error.errors)}`);
  }
  const extra = Object.keys(error).filter((k) => !['status', 'type', 'message', 'errors'].includes(k));
  if (extra.length > 0) problems.push(`unexpected error keys ${extra.join(',')}`);
  return problems;
}

/** The account API's envelope (interface-spec "Response envelope" and "Errors / Account REST API"). */
function checkAccountAnswer(status: number, json: unknown): string[] {
  const body = json as { href?: unknown; url?: unknown; success?: unknown; error?: Record<string, unknown> };
  if (typeof body.href !== 'string' && typeof body.url !== 'string') return ['no href or url'];
  if (status < 300) return body.success === true ? [] : ['2xx without success:true'];
  const error = body.error;
  if (body.success !== false || typeof error !== 'object' || error === null) return ['error answer without {success:false,error}'];
  const problems: string[] = [];
  if (error.status !== status) problems.push(`error.status ${String(error.status)} differs from HTTP ${status}`);
  if (!ACCOUNT_TYPES.has(String(error.type))) problems.push(`unexpected error.type ${String(error.type)}`);
  if (typeof error.userMessage !== 'string' || error.userMessage === '') problems.push('error.userMessage missing');
  if (error.validationErrors !== undefined) {
    const messages = Object.values(error.validationErrors as object);
    if (messages.length === 0 || messages.some((m) => typeof m !== 'string')) problems.push(`bad validationErrors ${JSON.stringify(error.validationErrors)}`);
  }
  const extra = Object.keys(error).filter((k) => !['status', 'type', 'userMessage', 'validationErrors', 'data', 'moreInfo'].includes(k));
  if (extra.length > 0) problems.push(`unexpected error keys ${extra.join(',')}`);
  return problems;
}

const JSON_TYPE = 'application/json';
const FORM_TYPE = 'application/x-www-form-urlencoded';

export const FUZZ_TARGETS: FuzzTarget[] = [
  {
    name: 'POST /v1/mail/send', method: 'POST', path: () => '/v1/mail/send', contentType: JSON_TYPE, auth: 'transactional',
    body: () => mutatedSendBody, checkAnswer: checkTransactionalAnswer,
  },
  {
    name: 'POST /v2/login (JSON)', method: 'POST', path: () => '/v2/login', contentType: JSON_TYPE, auth: 'none',
    body: (known) => mutatedJson(validLogin(known)), checkAnswer: checkAccountAnswer,
  },
  {
    name: 'POST /v2/login (form)', method: 'POST', path: () => '/v2/login', contentType: FORM_TYPE, auth: 'none',
    body: (known) => mutatedForm(validLogin(known)), checkAnswer: checkAccountAnswer,
  },
  {
    name: 'POST /v2/{account}/users (JSON)', method: 'POST', path: (account) => `/v2/${account}/users`, contentType: JSON_TYPE, auth: 'api',
    body: () => mutatedJson(validNewUser), checkAnswer: checkAccountAnswer,
  },
  {
    name: 'POST /v2/{account}/users (form)', method: 'POST', path: (account) => `/v2/${account}/users`, contentType: FORM_TYPE, auth: 'api',
    body: () => mutatedForm(validNewUser), checkAnswer: checkAccountAnswer,
  },
  {
    name: 'POST /v2/{account}/lists (JSON)', method: 'POST', path: (account) => `/v2/${account}/lists`, contentType: JSON_TYPE, auth: 'api',
    body: () => mutatedJson(validNewList), checkAnswer: checkAccountAnswer,
  },
  {
    name: 'POST /v2/{account}/lists (form)', method: 'POST', path: (account) => `/v2/${account}/lists`, contentType: FORM_TYPE, auth: 'api',
    body: () => mutatedForm(validNewList), checkAnswer: checkAccountAnswer,
  },
  {
    name: 'POST /v2/{account}/contacts (JSON)', method: 'POST', path: (account) => `/v2/${account}/contacts`, contentType: JSON_TYPE, auth: 'api',
    body: () => mutatedJson(validNewContact), checkAnswer: checkAccountAnswer,
  },
  {
    name: 'POST /v2/{account}/contacts (form)', method: 'POST', path: (account) => `/v2/${account}/contacts`, contentType: FORM_TYPE, auth: 'api',
    body: () => mutatedForm(validNewContact), checkAnswer: checkAccountAnswer,
  },
  {
    name: 'POST /v2/{account}/interests (JSON)', method: 'POST', path: (account) => `/v2/${account}/interests`, contentType: JSON_TYPE, auth: 'api',
    body: () => mutatedJson(validNewInterest), checkAnswer: checkAccountAnswer,
  },
  {
    name: 'POST /v2/{account}/fields (form)', method: 'POST', path: (account) => `/v2/${account}/fields`, contentType: FORM_TYPE, auth: 'api',
    body: () => mutatedForm(validNewField), checkAnswer: checkAccountAnswer,
  },
  {
    name: 'POST /v2/{account}/lists/1/contacts (form)', method: 'POST', path: (account) => `/v2/${account}/lists/1/contacts`, contentType: FORM_TYPE, auth: 'api',
    body: () => mutatedForm(validNewContact), checkAnswer: checkAccountAnswer,
  },
  {
    name: 'PUT /v2/{account}/contacts/1 (JSON)', method: 'PUT', path: (account) => `/v2/${account}/contacts/1`, contentType: JSON_TYPE, auth: 'api',
    body: () => mutatedJson(validContactUpdate), checkAnswer: checkAccountAnswer,
  },
  {
    name: 'POST /v2/{account}/contacts/export (JSON)', method: 'POST', path: (account) => `/v2/${account}/contacts/export`, contentType: JSON_TYPE, auth: 'api',
    body: () => mutatedJson(validExport), checkAnswer: checkAccountAnswer,
  },
  {
    name: 'POST /v2/{account}/contacts/import (JSON)', method: 'POST', path: (account) => `/v2/${account}/contacts/import`, contentType: JSON_TYPE, auth: 'api',
    body: () => mutatedJson(validImport), checkAnswer: checkAccountAnswer,
  },
  {
    name: 'POST /v2/{account}/contacts/import (form)', method: 'POST', path: (account) => `/v2/${account}/contacts/import`, contentType: FORM_TYPE, auth: 'api',
    body: () => mutatedForm(validImport), checkAnswer: checkAccountAnswer,
  },
  {
    name: 'POST /v2/{account}/contacts/import/preview (JSON)', method: 'POST', path: (account) => `/v2/${account}/contacts/import/preview`, contentType: JSON_TYPE, auth: 'api',
    body: () => mutatedJson(validImport), checkAnswer: checkAccountAnswer,
  },
  {
    name: 'POST /v2/optin/{account}/1 (form)', method: 'POST', path: (account) => `/v2/optin/${account}/1`, contentType: FORM_TYPE, auth: 'none',
    body: () => mutatedForm(validOptinSubmit), checkAnswer: checkAccountAnswer,
  },
];
