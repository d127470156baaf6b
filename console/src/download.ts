// Downloads a file the API serves behind the session's header (an export, a migration's id
// mapping): fetched with X-Auth-Token, kept as a Blob and saved through an object URL, so the
// token never goes into a URL (these routes authenticate like every account route: no tokenless link exists).
import { ApiError, request } from './api';
import { session } from './session';

/** Saves the file at `path` (under /v2/{account}) as `fileName`. */
export async function downloadFile(path: string, fileName: string): Promise<void> {
  const token = session()?.token;
  const response = await fetch(path, {
    headers: token ? { 'X-Auth-Token': token } : {}, credentials: 'omit', cache: 'no-store',
  }).catch(() => {
    throw new ApiError(0, 'NETWORK', 'Herald could not be reached. Check your connection and try again.');
  });
  if (!response.ok) {
    // The error envelope: read it again through the client, which gives its message (and handles a 401).
    await request(path);
    throw new ApiError(response.status, 'ERROR', `The download failed (HTTP ${response.status}).`);
  }
  const url = URL.createObjectURL(await response.blob());
  try {
    const link = document.createElement('a');
    link.href = url;
    link.download = fileName;
    document.body.append(link);
    link.click();
    link.remove();
  } finally {
    setTimeout(() => URL.revokeObjectURL(url), 10_000); // the browser has started saving it by then
  }
}
