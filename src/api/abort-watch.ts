/**
 * One 'abort' listener per AbortSignal, however many requests and retry waits watch it.
 *
 * A reconcile passes one signal to thousands of requests. Adding and removing an EventTarget
 * listener per request cost measurable time in the apply benchmark (issue 6), and with more
 * than ten requests or retry waits in flight Node warned of a possible listener leak
 * (MaxListenersExceededWarning) although nothing leaked.
 *
 * A signal's watchers are a LinkedList, not a Set: see linked-list.ts for why that matters
 * to the garbage collector.
 */
import { LinkedList } from './linked-list.js';

type Watcher = (reason: unknown) => void;

const watchersOf = new WeakMap<AbortSignal, LinkedList<Watcher>>();

function watchersFor(signal: AbortSignal): LinkedList<Watcher> {
  let watchers = watchersOf.get(signal);
  if (watchers === undefined) {
    const list = new LinkedList<Watcher>();
    // Drained first: a watcher usually stops watching while being called.
    signal.addEventListener(
      'abort',
      () => {
        for (const watch of list.drain()) watch(signal.reason);
      },
      { once: true },
    );
    watchersOf.set(signal, list);
    watchers = list;
  }
  return watchers;
}

/**
 * Calls `watcher` with the signal's reason when `signal` aborts; returns the function that
 * stops watching. Does nothing (and never calls back) for an undefined or already-aborted
 * signal: callers check `signal.aborted` first.
 */
export function watchAbort(signal: AbortSignal | undefined, watcher: Watcher): () => void {
  if (signal === undefined || signal.aborted) return noop;
  const watchers = watchersFor(signal);
  const node = watchers.push(watcher);
  return () => watchers.remove(node);
}

function noop(): void {}
