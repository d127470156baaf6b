// The migration's source client keeps to its rate: a second's worth of requests at once, then the
// rate on average. Checked against a local server with bounds a slower machine only keeps better
// (fewer requests per window, a longer run).
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { AccountApiClient } from '../../adapters/http/account-api-client';

test('requests keep to the rate: a second\'s worth at once, then the rate', async () => {
  const started: number[] = [];
  const server = http.createServer((_request, response) => {
    started.push(performance.now());
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end(JSON.stringify({ success: true, data: [] }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    const client = new AccountApiClient({ baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, account: 'acme', apiKey: 'k', requestsPerSecond: 5 });
    const begun = performance.now();
    for (let i = 0; i < 12; i += 1) await client.get('lists');
    const took = performance.now() - begun;
    expect(started).toHaveLength(12);
    // 5 at once, the 7 others at 5 a second: at least 1.4 s in all (less 10 ms of timer rounding).
    expect(took).toBeGreaterThanOrEqual(1390);
    // In any second, at most the burst and a second's refill.
    for (const at of started) expect(started.filter((t) => t >= at && t < at + 1000).length).toBeLessThanOrEqual(10);
  } finally {
    server.close();
  }
});
