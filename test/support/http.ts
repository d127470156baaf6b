// One HTTP call to a running Herald, as the account API's clients make them: a JSON or form
// body, any headers, and the answer's JSON parsed (undefined when empty).

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- response bodies are asserted field by field
export type Json = any;

export interface CallOptions { headers?: Record<string, string>; json?: unknown; form?: string }

export interface Answer { status: number; headers: Headers; body: Json }

export async function callHerald(baseUrl: string, method: string, path: string, options: CallOptions = {}): Promise<Answer> {
  const headers: Record<string, string> = { ...options.headers };
  let body: string | undefined;
  if (options.json !== undefined) { headers['content-type'] = 'application/json'; body = JSON.stringify(options.json); }
  if (options.form !== undefined) { headers['content-type'] = 'application/x-www-form-urlencoded'; body = options.form; }
  const response = await fetch(`${baseUrl}${path}`, { method, headers, body });
  const text = await response.text();
  return { status: response.status, headers: response.headers, body: text ? JSON.parse(text) : undefined };
}
