// `npm run api-fuzz [-- --minutes N] [--seed S] [--negative]`: Schemathesis (pinned, from PyPI into
// .tools/schemathesis) drives every operation of Herald's OpenAPI document against a Herald
// started as the benches start it (embedded store and Temporal, a counting relay, loopback only),
// a fresh account written into the document's paths and each security scheme given its key.
// Bounded by --minutes (15 by default). Prints Schemathesis's own output on stderr and one JSON
// summary on stdout; exits 1 on a 5xx or an answer outside the document (status, content type,
// headers or body schema) or when nothing was tested, 0 otherwise (Schemathesis's own faults are listed). Lives beside the benches because it shares their stack.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { quietTemporalRuntime } from '../adapters/temporal/runtime';
import { schemathesisPath } from '../infra/python-tools';
import { startBenchHerald, startBenchStack } from './herald-stack';
import { log, runAllTeardowns, Teardown } from './support';

/** What must hold: no server error, and every answer as the document says (status, type, headers, body). */
const CHECKS = ['not_a_server_error', 'status_code_conformance', 'content_type_conformance', 'response_headers_conformance', 'response_schema_conformance'];

/**
 * Operations that end the run's own credentials when fuzzed (its user is id 1, the first an id
 * parameter tries; its keys are the first too; the custom triggers' address): left out, or every
 * later call is a 401. test/integration/account-auth.test.ts, transactional-keys.test.ts and
 * triggers-intake.test.ts cover them.
 */
const OWN_CREDENTIALS = ['updateUser', 'deleteUser', 'deleteUserKey', 'deleteTransactionalKey', 'activateCustomTriggers', 'rotateCustomTriggers', 'deactivateCustomTriggers'];

/**
 * `--negative`: also Schemathesis's negative_data_rejection, every request the document refuses
 * (a wrong type, a missing field, a value out of range) answered with a refusal: the statuses below.
 */
const REFUSALS = ['400', '401', '403', '404', '405', '406', '409', '413', '415', '422'];

interface Options { minutes: number; seed?: number; negative: boolean }

type Parameter = { in?: string; name?: string };
type PathItem = Record<string, unknown> & { parameters?: Parameter[] };

/**
 * The document with the run's account written into every path instead of `{account}`. The run
 * is about one account: with the parameter left in, --negative makes requests with an `{account}`
 * it believes invalid, which the run's own override turns back into the valid one, and then counts
 * their success as an invalid value accepted.
 */
function withAccountInPaths(document: { paths: Record<string, PathItem> }, account: string): object {
  const withoutAccount = (parameters?: Parameter[]) => parameters?.filter((p) => !(p.in === 'path' && p.name === 'account'));
  const paths = Object.fromEntries(Object.entries(document.paths).map(([template, item]) => [
    template.replaceAll('{account}', account),
    Object.fromEntries(Object.entries(item).map(([key, value]) => {
      if (key === 'parameters') return [key, withoutAccount(value as Parameter[])];
      const operation = value as { parameters?: Parameter[] };
      return [key, operation && typeof operation === 'object' && operation.parameters ? { ...operation, parameters: withoutAccount(operation.parameters) } : value];
    })),
  ]));
  return { ...document, paths };
}

function optionsOf(argv: string[]): Options {
  const value = (name: string) => {
    const at = argv.indexOf(name);
    return at >= 0 ? argv[at + 1] : undefined;
  };
  const minutes = Number(value('--minutes') ?? 15);
  if (!Number.isFinite(minutes) || minutes <= 0) throw new Error(`--minutes must be a positive number, not ${value('--minutes')}`);
  const seed = value('--seed');
  return { minutes, negative: argv.includes('--negative'), ...(seed !== undefined ? { seed: Number(seed) } : {}) };
}

/** Schemathesis's JSON run report, the parts read here. */
interface RunReport {
  exit_code: number;
  running_time?: number;
  operations: { total: number; selected: number; tested: number; errored: number; skipped: number };
  test_cases: { generated: number; with_failures: number; unique_failures: number; errored: number };
  failures: Array<{ type: string; code?: string; title: string; count: number; operations: string[] }>;
  errors: Array<{ title: string; count: number }>;
}

export async function runApiFuzz(options: Options): Promise<{ summary: Record<string, unknown>; failed: boolean }> {
  const st = await schemathesisPath();
  const teardown = new Teardown();
  try {
    const stack = await startBenchStack('api-fuzz', teardown);
    const bench = await startBenchHerald(stack, teardown);
    const api = await bench.herald.apiServer();
    await new Promise<void>((resolve) => api.listen(0, '127.0.0.1', resolve));
    teardown.defer('api', () => new Promise<void>((resolve) => { api.close(() => resolve()); }));
    const baseUrl = `http://127.0.0.1:${(api.address() as AddressInfo).port}`;

    // The custom triggers' address, so their intake is fuzzed past its credential check.
    const activated = await fetch(`${baseUrl}/v2/${bench.account}/integrations/customtriggers/activate`, { method: 'POST', headers: { authorization: `Bearer ${bench.apiKey}` } });
    const triggerUrl = String(((await activated.json()) as { data?: { trigger_url?: string } }).data?.trigger_url);
    const [, credentialA, credentialB] = /\/init\/([^/]+)\/([^/]+)$/.exec(triggerUrl) ?? [];
    if (!credentialA || !credentialB) throw new Error(`no custom trigger address (${activated.status} ${triggerUrl})`);

    const dir = teardown.tempDir('herald-api-fuzz-');
    const reportFile = path.join(dir, 'report.json');
    const documentFile = path.join(dir, 'openapi.json');
    const served = await fetch(`${baseUrl}/v2/openapi.json`);
    if (!served.ok) throw new Error(`the OpenAPI document: ${served.status}`);
    fs.writeFileSync(documentFile, JSON.stringify(withAccountInPaths(await served.json() as { paths: Record<string, PathItem> }, bench.account)));
    // The keys come from the environment (Schemathesis resolves ${…}): none is written to a file.
    const config = path.join(dir, 'schemathesis.toml');
    fs.writeFileSync(config, [
      // Every scheme an operation may use: a user's key works as Bearer, X-Auth-Token and ?token=.
      '[auth.openapi.apiKey]', 'bearer = "${HERALD_FUZZ_API_KEY}"', '',
      '[auth.openapi.authToken]', 'api_key = "${HERALD_FUZZ_API_KEY}"', '',
      '[auth.openapi.tokenQuery]', 'api_key = "${HERALD_FUZZ_API_KEY}"', '',
      '[auth.openapi.transactionalKey]', 'bearer = "${HERALD_FUZZ_TRANSACTIONAL_KEY}"', '',
      // Both keys are bearer schemes: Schemathesis gives the account key to every operation, so the transactional ones get theirs here.
      '[[operations]]', 'include-tag = "Transactional"', 'headers = { Authorization = "Bearer ${HERALD_FUZZ_TRANSACTIONAL_KEY}" }', '',
      '[[operations]]', 'include-operation-id = "postTriggerEvent"',
      'parameters = { "path.credentialA" = "${HERALD_FUZZ_TRIGGER_A}", "path.credentialB" = "${HERALD_FUZZ_TRIGGER_B}" }', '',
      '[checks.negative_data_rejection]', `expected-statuses = ${JSON.stringify(REFUSALS)}`, '',
    ].join('\n'));
    const args = [
      '--config-file', config, 'run', documentFile, '--url', baseUrl,
      '--checks', [...CHECKS, ...(options.negative ? ['negative_data_rejection'] : [])].join(','), '--max-time', String(Math.round(options.minutes * 60)), '--workers', '2',
      '--report', 'json', '--report-json-path', reportFile, '--no-color',
      ...OWN_CREDENTIALS.flatMap((id) => ['--exclude-operation-id', id]),
      ...(options.seed !== undefined ? ['--seed', String(options.seed)] : []),
    ];
    log(`api-fuzz: Schemathesis against ${baseUrl} for ${options.minutes} min (account ${bench.account})`);
    const exitCode = await new Promise<number>((resolve, reject) => {
      const child = spawn(st, args, {
        stdio: ['ignore', 2, 2], // its report on stderr: stdout is this run's JSON line
        env: {
          ...process.env, HERALD_FUZZ_API_KEY: bench.apiKey, HERALD_FUZZ_TRANSACTIONAL_KEY: bench.transactionalKey,
          HERALD_FUZZ_TRIGGER_A: credentialA, HERALD_FUZZ_TRIGGER_B: credentialB,
        },
      });
      child.on('error', reject);
      child.on('exit', (code) => resolve(code ?? 1));
    });
    if (!fs.existsSync(reportFile)) throw new Error(`Schemathesis wrote no report (exit ${exitCode})`);
    const report = JSON.parse(fs.readFileSync(reportFile, 'utf8')) as RunReport;
    const serverErrors = report.failures.filter((f) => f.code === 'not_a_server_error' || /server error/i.test(f.title));
    const summary = {
      scenario: 'api-fuzz',
      minutes: options.minutes,
      seed: options.seed ?? null,
      negative: options.negative,
      running_time_s: report.running_time ?? null,
      operations: report.operations,
      test_cases: report.test_cases,
      server_errors: serverErrors.reduce((n, f) => n + f.count, 0),
      failures: report.failures.map((f) => ({ check: f.code ?? f.type, title: f.title, count: f.count, operations: f.operations })),
      // Schemathesis's own faults (one seen: a Python AST recursion error inside its generator) are
      // reported, not counted against Herald; a run that tested nothing fails.
      tool_errors: report.errors,
      schemathesis_exit_code: exitCode,
    };
    return { summary, failed: report.failures.length > 0 || report.operations.tested === 0 };
  } finally {
    await teardown.run();
  }
}

async function main(): Promise<void> {
  quietTemporalRuntime();
  const stop = () => { void runAllTeardowns().finally(() => process.exit(130)); };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  try {
    const { summary, failed } = await runApiFuzz(optionsOf(process.argv.slice(2)));
    process.stdout.write(`${JSON.stringify(summary)}\n`);
    process.exitCode = failed ? 1 : 0;
  } catch (error) {
    log(`api-fuzz: ${(error as Error).stack ?? String(error)}`);
    process.exitCode = 2;
  }
}

if (require.main === module) void main();
