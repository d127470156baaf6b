// What the contacts import tests do over HTTP: account API calls with a key, multipart uploads as
// a browser or the PHP SDK sends them, and waiting for a task to settle.
import { callHerald, type Answer, type Json } from './http';

export interface ImportClient {
  call(method: string, path: string, options?: { key?: string; json?: unknown; form?: string; account?: string }): Promise<Answer>;
  /** POST /contacts/import/upload with the file in `fileToUpload` (or another part name). */
  upload(content: string | Buffer, options?: { filename?: string; field?: string; key?: string }): Promise<Answer>;
  /** Polls the task until it is no longer active. */
  settled(id: number): Promise<Json>;
  /** Starts an import (201 expected) and waits for its task to settle. */
  importAndWait(body: Record<string, unknown>): Promise<Json>;
}

export function importClient(baseUrl: string, account: () => { account: string; apiKey: string }): ImportClient {
  const call: ImportClient['call'] = (method, path, options = {}) => callHerald(baseUrl, method, `/v2/${options.account ?? account().account}${path}`, {
    ...options, headers: { authorization: `Bearer ${options.key ?? account().apiKey}` },
  });
  const client: ImportClient = {
    call,
    async upload(content, options = {}) {
      const form = new FormData();
      form.append(options.field ?? 'fileToUpload', new Blob([content], { type: 'text/csv' }), options.filename ?? 'contacts.csv');
      const response = await fetch(`${baseUrl}/v2/${account().account}/contacts/import/upload`, {
        method: 'POST', body: form, headers: { authorization: `Bearer ${options.key ?? account().apiKey}` },
      });
      const text = await response.text();
      return { status: response.status, headers: response.headers, body: text ? JSON.parse(text) : undefined };
    },
    async settled(id) {
      for (let i = 0; i < 600; i++) {
        const answer = await call('GET', `/tasks/${id}`);
        if (!['QUEUED', 'INITIALIZING', 'PROCESSING'].includes(answer.body.data.state)) return answer.body.data;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      throw new Error(`task ${id} did not settle`);
    },
    async importAndWait(body) {
      const answer = await call('POST', '/contacts/import', { json: body });
      if (answer.status !== 201) throw new Error(`import answered ${answer.status}: ${JSON.stringify(answer.body)}`);
      return client.settled(answer.body.task.id);
    },
  };
  return client;
}
