import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { api, messageOf, type Envelope } from './api';

export interface Loaded<T> {
  data: T | undefined;
  envelope: Envelope<T> | undefined;
  error: string | undefined;
  loading: boolean;
  reload: () => void;
}

type Query = Record<string, string | number | boolean | undefined | null>;

/**
 * GETs an API path, again whenever the path or query changes; a later answer never overwrites a
 * newer one. `path` null: nothing to load yet.
 */
export function useApi<T>(path: string | null, query: Query = {}): Loaded<T> {
  const [state, setState] = useState<{ envelope?: Envelope<T>; error?: string; loading: boolean }>({ loading: path !== null });
  const [tick, setTick] = useState(0);
  const latest = useRef(0);
  const key = path === null ? null : `${path}?${JSON.stringify(query)}`;
  useEffect(() => {
    if (path === null) return;
    const call = ++latest.current;
    setState((s) => ({ ...s, loading: true }));
    api.get<T>(path, query).then(
      (envelope) => { if (call === latest.current) setState({ envelope, loading: false }); },
      (error) => { if (call === latest.current) setState({ error: messageOf(error), loading: false }); },
    );
  }, [key, tick]); // the path and query, by value
  const reload = useCallback(() => setTick((t) => t + 1), []);
  return { data: state.envelope?.data, envelope: state.envelope, error: state.error, loading: state.loading, reload };
}

/** Calls `load` every `ms` while `active`: a task's progress, a launching campaign's counts. */
export function usePolling(active: boolean, ms: number, load: () => void): void {
  useEffect(() => {
    if (!active) return;
    const timer = setInterval(load, ms);
    return () => clearInterval(timer);
  }, [active, ms, load]);
}
