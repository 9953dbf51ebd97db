import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { live, type LiveMode } from './api/live';
import type { LiveEvent } from './api/types';

export function useLiveMode(): LiveMode {
  const [mode, setMode] = useState<LiveMode>(live.mode);
  useEffect(() => live.onMode(setMode), []);
  return mode;
}

export interface Resource<T> {
  data: T | undefined;
  error: Error | undefined;
  loading: boolean;
  /** When the data was last loaded (ms). */
  loadedAt: number | undefined;
  reload: () => void;
}

export interface ResourceOptions {
  /** Poll every this many ms while the event stream is not connected (every 30 s while it is). */
  pollMs?: number;
  /** Reload when a live event matches (debounced). */
  refreshOn?: (e: LiveEvent) => boolean;
}

/**
 * Loads `load()` once per `key`, then keeps it fresh: on matching live events while the event stream is up,
 * else by polling. The previous data stays visible while a reload is under way.
 */
export function useResource<T>(key: string, load: (signal: AbortSignal) => Promise<T>, opts: ResourceOptions = {}): Resource<T> {
  const [state, setState] = useState<{ key: string; data?: T; error?: Error; loading: boolean; loadedAt?: number }>({ key, loading: true });
  const loadRef = useRef(load);
  loadRef.current = load;
  const optsRef = useRef(opts);
  optsRef.current = opts;
  const ctrl = useRef<AbortController | undefined>(undefined);
  const mode = useLiveMode();

  const reload = useCallback(() => {
    ctrl.current?.abort();
    const c = new AbortController();
    ctrl.current = c;
    setState((s) => ({ ...s, key, loading: true }));
    loadRef.current(c.signal).then(
      (data) => {
        if (!c.signal.aborted) setState({ key, data, loading: false, loadedAt: Date.now() });
      },
      (error: Error) => {
        if (!c.signal.aborted && error.name !== 'AbortError')
          setState((s) => ({
            key,
            ...(s.key === key && s.data !== undefined ? { data: s.data } : {}),
            error,
            loading: false,
            loadedAt: Date.now(),
          }));
      },
    );
  }, [key]);

  useEffect(() => {
    reload();
    return () => ctrl.current?.abort();
  }, [reload]);

  // Catch up when the stream (re)connects; poll while it is not connected.
  const lastMode = useRef(mode);
  useEffect(() => {
    const was = lastMode.current;
    lastMode.current = mode;
    if (mode === 'events' && was !== 'events') reload();
    // With the stream up, a slow safety refresh only (an event lost in a reconnect is caught up within 30 s).
    const poll = optsRef.current.pollMs;
    if (poll === undefined) return undefined;
    const every = mode === 'events' ? Math.max(30_000, poll) : poll;
    const t = setInterval(reload, every);
    return () => clearInterval(t);
  }, [mode, reload]);

  useEffect(() => {
    let pending: ReturnType<typeof setTimeout> | undefined;
    const off = live.subscribe((e) => {
      if (!optsRef.current.refreshOn?.(e)) return;
      if (pending === undefined)
        pending = setTimeout(() => {
          pending = undefined;
          reload();
        }, 150);
    });
    return () => {
      off();
      if (pending !== undefined) clearTimeout(pending);
    };
  }, [reload]);

  const same = state.key === key;
  return {
    data: same ? state.data : undefined,
    error: same ? state.error : undefined,
    loading: !same || state.loading,
    loadedAt: same ? state.loadedAt : undefined,
    reload,
  };
}

/** The current time, updated every `everyMs` (for "5 s ago" labels and the timeline's right edge). */
export function useNow(everyMs = 1000): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const t = setInterval(() => setNow(Date.now()), everyMs);
    return () => clearInterval(t);
  }, [everyMs]);
  return now;
}
