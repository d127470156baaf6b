import { DefaultLogger, Runtime, makeTelemetryFilterString } from '@temporalio/worker';

/**
 * Keeps the SDK's own logs (and its native core's, forwarded) at warn level, as JSON lines on
 * stderr: stdout stays for our own output (JSON logs, the start banner, benchmark results).
 * Installed once per process, before any worker connection.
 */
export function quietTemporalRuntime(): void {
  const toStderr = (entry: { level: string; message: string; meta?: object }) =>
    process.stderr.write(`${JSON.stringify({ name: 'temporal', level: entry.level.toLowerCase(), msg: entry.message, ...entry.meta })}\n`);
  Runtime.install({
    logger: new DefaultLogger('WARN', toStderr),
    telemetryOptions: { logging: { filter: makeTelemetryFilterString({ core: 'WARN' }), forward: {} } },
  });
}
