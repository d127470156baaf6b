// Jest's order, longest first, also on a fresh clone: jest knows how long each file took only
// from its cache, and without one it orders by file size, which can leave a minute-long
// end-to-end file for last (CI runs on a fresh clone). A file with no recorded time takes its
// time from ./file-seconds.json (one full run's times on a 2-core machine, seconds per file: the
// longest files start first and the run's end is not one long file alone), and a file missing
// there (a new one) an estimate from its folder: end-to-end and console files run long (child
// processes, a browser), unit files short. To refresh the table after the suite changed much, take
// a full run's times from jest's cache: its perf-cache-* file (in the cacheDirectory that
// `npx jest --showConfig` names) maps each file's absolute path to [status, milliseconds].
const path = require('node:path');
const Sequencer = require('@jest/test-sequencer').default;
const FILE_SECONDS = require('./file-seconds.json');

/** Seconds a file of each folder takes, roughly, on these 2-core machines. */
const FOLDER_ESTIMATE_S = { e2e: 45, browser: 30, workflows: 15, fuzz: 15, integration: 10, unit: 1 };

class LongestFirst extends Sequencer {
  sort(tests) {
    const estimate = (test) => {
      const recorded = FILE_SECONDS[path.relative(test.context.config.rootDir, test.path).split(path.sep).join('/')];
      if (recorded !== undefined) return recorded * 1000;
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
