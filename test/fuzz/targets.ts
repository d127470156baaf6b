// The endpoints under fuzz, each with its input generator and the rules its answers must keep.
// Every endpoint a later issue adds joins this list.
import type fc from 'fast-check';
import { mutatedSendBody } from './arbitraries';

export interface FuzzTarget {
  name: string;
  method: string;
  path: string;
  contentType: string;
  /** Which credential the request carries. */
  auth: 'transactional' | 'api';
  body: fc.Arbitrary<string>;
  /** Problems with one answer (empty when it keeps the interface's rules). */
  checkAnswer(status: number, json: unknown): string[];
}

const TRANSACTIONAL_TYPES = new Set(['bad_request', 'validation_error', 'unauthorized', 'forbidden', 'not_found', 'method_not_allowed', 'payload_too_large']);
const VALIDATION_CODES = new Set(['required', 'required_at_least_one', 'max_length_exceeded', 'too_many_items', 'invalid_value']);

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

export const FUZZ_TARGETS: FuzzTarget[] = [
  {
    name: 'POST /v1/mail/send',
    method: 'POST',
    path: '/v1/mail/send',
    contentType: 'application/json',
    auth: 'transactional',
    body: mutatedSendBody,
    checkAnswer: checkTransactionalAnswer,
  },
];
