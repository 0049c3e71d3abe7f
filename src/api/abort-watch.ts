/**
 * One 'abort' listener per AbortSignal, however many requests and retry waits watch it.
 *
 * A reconcile passes one signal to thousands of requests. Adding and removing an EventTarget
 * listener per request cost measurable time in the apply benchmark (issue 6), and with more
 * than ten requests or retry waits in flight Node warned of a possible listener leak
 * (MaxListenersExceededWarning) although nothing leaked.
 */

type Watcher = (reason: unknown) => void;

const watchers = new WeakMap<AbortSignal, Set<Watcher>>();

/**
 * Calls `watcher` with the signal's reason when `signal` aborts; returns the function that
 * stops watching. Does nothing (and never calls back) for an undefined or already-aborted
 * signal: callers check `signal.aborted` first.
 */
export function watchAbort(signal: AbortSignal | undefined, watcher: Watcher): () => void {
  if (signal === undefined || signal.aborted) return noop;
  let set = watchers.get(signal);
  if (set === undefined) {
    const created = new Set<Watcher>();
    signal.addEventListener(
      'abort',
      () => {
        // Copy first: a watcher usually unsubscribes itself while being called.
        for (const watch of [...created]) watch(signal.reason);
        created.clear();
      },
      { once: true },
    );
    watchers.set(signal, created);
    set = created;
  }
  set.add(watcher);
  return () => {
    set.delete(watcher);
  };
}

function noop(): void {}
