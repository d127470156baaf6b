// The embedded Temporal starts from the project's own tools, on loopback, with Herald's
// search attributes and the web UI; the time-skipping test server is installed too.
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { Connection } from '@temporalio/client';
import { startEmbeddedTemporal } from '../../infra/temporal';
import { temporalTestServerPath } from '../../infra/python-tools';
import { searchAttributeKeys } from '../../adapters/temporal/contracts';
import { freePort } from '../../infra/ports';
import { connectTemporal } from '../../adapters/temporal/client';
import { openTcpDoor } from '../support/tcp-door';

let tmp: string;

beforeAll(() => { tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'herald-temporal-')); });
afterAll(() => { fs.rmSync(tmp, { recursive: true, force: true }); });

test('starts the dev server with a SQLite file, search attributes and the UI; a port taken after it was found free is found again', async () => {
  // The second port handed out (the web UI's) is taken by the time the server binds it, as another
  // process may take one; the server then exits (as seen with two test runs side by side).
  const squatter = net.createServer();
  await new Promise<void>((resolve) => squatter.listen(0, '127.0.0.1', resolve));
  const taken = (squatter.address() as net.AddressInfo).port;
  let handedOut = 0;
  const findFreePort = (host?: string) => (handedOut++ === 1 ? Promise.resolve(taken) : freePort(host));
  const temporal = await startEmbeddedTemporal({ dbFile: path.join(tmp, 'temporal.db'), logFile: path.join(tmp, 'temporal.log') }, findFreePort)
    .finally(() => new Promise((resolve) => squatter.close(resolve)));
  try {
    expect(Object.values(temporal.ports)).not.toContain(taken);
    expect(fs.readFileSync(path.join(tmp, 'temporal.log'), 'utf8')).toContain('address already in use'); // the first try's
    expect(temporal.address).toBe(`127.0.0.1:${temporal.ports.grpc}`);
    const connection = await Connection.connect({ address: temporal.address });
    try {
      const { customAttributes } = await connection.operatorService.listSearchAttributes({ namespace: temporal.namespace });
      for (const key of Object.values(searchAttributeKeys)) {
        expect(Object.keys(customAttributes ?? {})).toContain(key.name);
      }
    } finally {
      await connection.close();
    }
    const ui = await fetch(temporal.uiUrl);
    expect(ui.status).toBe(200);
    expect(fs.existsSync(path.join(tmp, 'temporal.db'))).toBe(true);
  } finally {
    await temporal.stop();
  }
});

test('the time-skipping test server is an executable file', async () => {
  const server = await temporalTestServerPath();
  expect(fs.statSync(server).isFile()).toBe(true);
  expect(() => fs.accessSync(server, fs.constants.X_OK)).not.toThrow();
});

test('a process starting while Temporal is unreachable tries again, 5 s an attempt, and connects once it answers', async () => {
  // A loopback door to the suite's Temporal that turns connections away for the first 6 s: longer
  // than one attempt's 5 s, so only a second attempt can connect.
  const target = process.env.TEMPORAL_ADDRESS!.split(':');
  const openAt = Date.now() + 6000;
  let refused = 0;
  const door = await openTcpDoor(target[0], Number(target[1]), () => {
    if (Date.now() >= openAt) return false;
    refused += 1;
    return true;
  });
  try {
    const client = await connectTemporal(`127.0.0.1:${door.port}`, 'default');
    try {
      expect(refused).toBeGreaterThan(0);
      expect(Date.now()).toBeGreaterThanOrEqual(openAt);
      const info = await client.workflowService.getSystemInfo({});
      expect(info.serverVersion).toBeTruthy();
    } finally {
      await client.connection.close();
    }
  } finally {
    await door.close();
  }
});
