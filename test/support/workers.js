// How many jest workers this run takes (jest.config.js): four when the machine is idle as the run
// starts, three when other work already takes much of its cores. Measured on 2 cores: three
// workers left the cores ~90-95% busy, four ~98% and the run ~10% shorter; beside a second suite,
// the cores are full either way and a fourth worker only adds contention (the files' safety nets
// are then what runs short). Looked at for under a second: the share of CPU time idle.
const os = require('node:os');

const WORKERS = { idle: 4, busy: 3 };
/** The machine counts as idle when at least this share of its CPU time was idle while looked at. */
const IDLE_SHARE = 0.6;
const LOOK_MS = 700;

function cpuTimes() {
  let idle = 0;
  let total = 0;
  for (const { times } of os.cpus()) {
    idle += times.idle;
    total += times.user + times.nice + times.sys + times.idle + times.irq;
  }
  return { idle, total };
}

async function idleShare() {
  const before = cpuTimes();
  await new Promise((resolve) => setTimeout(resolve, LOOK_MS));
  const after = cpuTimes();
  return (after.idle - before.idle) / Math.max(1, after.total - before.total);
}

async function choose() {
  const idle = await idleShare();
  const workers = idle >= IDLE_SHARE ? WORKERS.idle : WORKERS.busy;
  process.stderr.write(`jest: ${workers} workers (${Math.round(idle * 100)}% of the CPU idle as the run starts)\n`);
  return workers;
}

/** Chosen once per process: jest reads its configuration twice. */
let chosen;
function workersForThisMachine() {
  chosen ??= choose();
  return chosen;
}

module.exports = { workersForThisMachine };
