// The one outgoing HTTPS GET of the API process: Amazon SNS's signing certificates and its
// subscription confirmations (core/bounces/sns.ts). Given to the API by the composition root, so
// tests can answer it from a local HTTPS server of their own (their own CA, the SNS host name kept).
import https from 'node:https';

/** GETs an https URL and resolves to its body (2xx only), within a time and size limit. */
export type HttpsGet = (url: string) => Promise<string>;

export interface HttpsGetOptions { timeoutMs?: number; maxBytes?: number }

export function createHttpsGet({ timeoutMs = 10_000, maxBytes = 64 * 1024 }: HttpsGetOptions = {}): HttpsGet {
  return (url) => new Promise<string>((resolve, reject) => {
    if (!url.startsWith('https://')) {
      reject(new Error(`not an https URL: ${url}`));
      return;
    }
    const request = https.get(url, { timeout: timeoutMs, headers: { accept: '*/*', 'user-agent': 'herald' } }, (response) => {
      const status = response.statusCode ?? 0;
      if (status < 200 || status >= 300) {
        response.resume();
        reject(new Error(`GET ${new URL(url).host} answered ${status}`));
        return;
      }
      const chunks: Buffer[] = [];
      let size = 0;
      response.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size > maxBytes) {
          request.destroy(new Error(`GET ${new URL(url).host}: the answer is over ${maxBytes} bytes`));
          return;
        }
        chunks.push(chunk);
      });
      response.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
      response.on('error', reject);
    });
    request.on('timeout', () => request.destroy(new Error(`GET ${new URL(url).host} timed out after ${timeoutMs} ms`)));
    request.on('error', reject);
  });
}
