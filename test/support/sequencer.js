// Jest's order, longest first, also on a fresh clone: jest knows how long each file took only
// from its cache, and without one it orders by file size, which can leave a minute-long
// end-to-end file for last (CI runs on a fresh clone). A file with no recorded time gets an
// estimate from its folder instead: end-to-end and console files run long (child processes, a
// browser), unit files short.
const Sequencer = require('@jest/test-sequencer').default;

/** Seconds a file of each folder takes, roughly, on these 2-core machines. */
const FOLDER_ESTIMATE_S = { e2e: 45, browser: 30, workflows: 15, fuzz: 15, integration: 10, unit: 1 };

class LongestFirst extends Sequencer {
  sort(tests) {
    const estimate = (test) => {
      const folder = /[\\/]test[\\/]([^\\/]+)[\\/]/.exec(test.path)?.[1];
      return (FOLDER_ESTIMATE_S[folder] ?? 10) * 1000;
    };
    for (const test of tests) test.duration = this.time(test) ?? estimate(test);
    return tests.sort((a, b) => {
      const failedA = this.hasFailed(a);
      if (failedA !== this.hasFailed(b)) return failedA ? -1 : 1;
      return b.duration - a.duration;
    });
  }
}

module.exports = LongestFirst;
