import { useCallback, useEffect, useLayoutEffect, useRef, useState } from 'preact/hooks';

export interface Loaded<T> {
  readonly value: T | undefined;
  readonly error: unknown;
  readonly loading: boolean;
  readonly reload: () => void;
}

/** Runs `load` now and whenever `deps` change; a late answer of an earlier run is dropped. */
export function useLoad<T>(load: () => Promise<T>, deps: readonly unknown[]): Loaded<T> {
  const [state, setState] = useState<{ value: T | undefined; error: unknown; loading: boolean }>({ value: undefined, error: null, loading: true });
  const [generation, setGeneration] = useState(0);
  const run = useRef(0);
  // The caller lists what `load` depends on. A layout effect: the read starts right after the
  // render, not a frame later.
  useLayoutEffect(() => {
    const mine = ++run.current;
    setState((s) => ({ ...s, loading: true }));
    load().then(
      (value) => mine === run.current && setState({ value, error: null, loading: false }),
      (error: unknown) => mine === run.current && setState((s) => ({ value: s.value, error, loading: false })),
    );
  }, [...deps, generation]);
  const reload = useCallback(() => setGeneration((g) => g + 1), []);
  return { ...state, reload };
}

/** Calls `tick` every `ms` while the page is visible. */
export function useInterval(tick: () => void, ms: number): void {
  const latest = useRef(tick);
  latest.current = tick;
  useEffect(() => {
    const timer = setInterval(() => {
      if (!document.hidden) latest.current();
    }, ms);
    return () => clearInterval(timer);
  }, [ms]);
}

export interface Route {
  /** '#/events/abc' → ['events', 'abc'] */
  readonly parts: readonly string[];
  readonly params: URLSearchParams;
}

function currentRoute(): Route {
  const [path = '', query = ''] = location.hash.replace(/^#\/?/, '').split('?');
  return { parts: path.split('/').filter(Boolean).map(decodeURIComponent), params: new URLSearchParams(query) };
}

/** The console's place, kept in the URL's fragment (never the token: that stays in sessionStorage). */
export function useRoute(): Route {
  const [route, setRoute] = useState(currentRoute);
  useEffect(() => {
    const onChange = () => setRoute(currentRoute());
    window.addEventListener('hashchange', onChange);
    return () => window.removeEventListener('hashchange', onChange);
  }, []);
  return route;
}

export const navigate = (hash: string) => {
  location.hash = hash;
};
