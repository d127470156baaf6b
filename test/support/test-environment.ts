// Jest's node environment, plus: the Temporal SDK's logs buffered by test/support/temporal-logs.ts
// are printed (on stderr, before jest's report of the file) for a test or hook that failed, and
// dropped once a test passed; and every test's and hook's timeout, the default one or its own,
// is a safety net stretched for a busy machine (./safety-net.ts). It also hands each file the
// jest worker's shared Herald stack (./worker-stack.ts, loaded on first request in the worker's
// realm, where it outlives the file). When the file ends, the async storages its realm enabled are
// disabled (./async-storage-release.ts), or every promise of the worker pays for them from then on.
import type { Circus } from '@jest/types';
import { TestEnvironment } from 'jest-environment-node';
import { releaseAsyncStorages, trackAsyncStorages } from './async-storage-release';
import { safetyNet } from './safety-net';
import { takeTemporalLogs } from './temporal-log-buffer';
import { installTsRequireHook } from './ts-require-hook';
import { WORKER_STACK } from './worker-stack-handle';

export default class HeraldTestEnvironment extends TestEnvironment {
  private readonly testPath: string;
  private readonly realmObjectPrototype: object;

  constructor(...args: ConstructorParameters<typeof TestEnvironment>) {
    super(...args);
    trackAsyncStorages();
    this.testPath = args[1].testPath;
    const fileGlobal = this.global;
    this.realmObjectPrototype = (fileGlobal as { Object: ObjectConstructor }).Object.prototype;
    Object.defineProperty(fileGlobal, WORKER_STACK, {
      value: () => {
        installTsRequireHook();
        return (require('./worker-stack') as typeof import('./worker-stack')).workerStack(fileGlobal);
      },
    });
  }

  override async teardown(): Promise<void> {
    releaseAsyncStorages(this.realmObjectPrototype);
    await super.teardown();
  }

  handleTestEvent(event: Circus.Event, state: Circus.State): void {
    // Read by jest-circus right after these events, when it starts the test's or hook's timer.
    if (event.name === 'test_start') stretchTimeout(event.test, state);
    else if (event.name === 'hook_start') stretchTimeout(event.hook, state);
    else if (event.name === 'test_done') this.flush(event.test.errors.length > 0 ? `test "${testName(event.test)}"` : undefined);
    else if (event.name === 'hook_failure') this.flush(`${event.hook.type} hook${event.test ? ` of "${testName(event.test)}"` : ''}`);
  }

  private flush(failed: string | undefined): void {
    const entries = takeTemporalLogs(this.global);
    if (failed === undefined || entries.length === 0) return;
    process.stderr.write(`\nTemporal SDK logs before the failed ${failed} (${this.testPath}):\n${entries.join('\n')}\n\n`);
  }
}

/** The timeouts as written, by test or hook: a hook runs again for every test, a test again on a retry. */
const writtenTimeouts = new WeakMap<object, number | null | undefined>();

function stretchTimeout(entry: { timeout?: number | null }, state: Circus.State): void {
  if (!writtenTimeouts.has(entry)) writtenTimeouts.set(entry, entry.timeout);
  entry.timeout = safetyNet(writtenTimeouts.get(entry) ?? state.testTimeout);
}

function testName(test: Circus.TestEntry): string {
  const names: string[] = [];
  for (let block: Circus.DescribeBlock | undefined = test.parent; block?.parent; block = block.parent) names.unshift(block.name);
  return [...names, test.name].join(' › ');
}
