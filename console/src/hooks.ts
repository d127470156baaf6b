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
 * newer one. `path` null: nothing to load yet. `refreshMs` > 0: read again that long after each
 * answer, or twice as long as the answer took if that is more (a 2-second report of a big
 * campaign is not asked for back to back while it sends); back to 0, it reads once more.
 */
export function useApi<T>(path: string | null, query: Query = {}, refreshMs = 0): Loaded<T> {
  const [state, setState] = useState<{ envelope?: Envelope<T>; error?: string; loading: boolean }>({ loading: path !== null });
  const [tick, setTick] = useState(0);
  const latest = useRef(0);
  const refresh = useRef(refreshMs);
  refresh.current = refreshMs;
  const key = path === null ? null : `${path}?${JSON.stringify(query)}`;
  useEffect(() => {
    if (path === null) return;
    const call = ++latest.current;
    const started = performance.now();
    let timer: ReturnType<typeof setTimeout> | undefined;
    const answered = (next: { envelope?: Envelope<T>; error?: string }) => {
      if (call !== latest.current) return;
      setState({ ...next, loading: false });
      if (refresh.current > 0) timer = setTimeout(() => setTick((t) => t + 1), Math.max(refresh.current, 2 * (performance.now() - started)));
    };
    setState((s) => ({ ...s, loading: true }));
    api.get<T>(path, query).then((envelope) => answered({ envelope }), (error) => answered({ error: messageOf(error) }));
    return () => clearTimeout(timer);
  }, [key, tick, refreshMs > 0]); // the path and query by value; refreshing switched on or off
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
