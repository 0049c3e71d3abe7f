/**
 * One 'abort' listener per AbortSignal, however many requests and retry waits watch it.
 *
 * A reconcile passes one signal to thousands of requests. Adding and removing an EventTarget
 * listener per request cost measurable time in the apply benchmark (issue 6), and with more
 * than ten requests or retry waits in flight Node warned of a possible listener leak
 * (MaxListenersExceededWarning) although nothing leaked.
 *
 * The watchers of a signal form a doubly linked list whose links are cleared on removal. A
 * `Set` churned by add/delete was tried first and cost a quarter of the apply phase's GC:
 * each rehash leaves the old table, full of pointers to the exchanges of that moment, in the
 * old generation (the Set lives as long as the reconcile), and V8's young-generation
 * collector treats every pointer from the old generation as live until the next full
 * collection. A fifth of each request's garbage was promoted that way. A cleared list node
 * points at nothing, dead or alive.
 */

type Watcher = (reason: unknown) => void;

interface WatchNode {
  watcher: Watcher | undefined;
  prev: WatchNode | undefined;
  next: WatchNode | undefined;
}

class Watchers {
  #head: WatchNode | undefined;
  #tail: WatchNode | undefined;

  constructor(signal: AbortSignal) {
    signal.addEventListener('abort', () => this.#fire(signal.reason), { once: true });
  }

  add(watcher: Watcher): WatchNode {
    const node: WatchNode = { watcher, prev: this.#tail, next: undefined };
    if (this.#tail === undefined) this.#head = node;
    else this.#tail.next = node;
    this.#tail = node;
    return node;
  }

  /** Unlinks `node` (again: nothing happens) and clears its links. */
  remove(node: WatchNode): void {
    if (node.watcher === undefined) return;
    if (node.prev === undefined) this.#head = node.next;
    else node.prev.next = node.next;
    if (node.next === undefined) this.#tail = node.prev;
    else node.next.prev = node.prev;
    node.watcher = undefined;
    node.prev = undefined;
    node.next = undefined;
  }

  #fire(reason: unknown): void {
    // Collected first: a watcher usually stops watching while being called.
    const due: Watcher[] = [];
    for (let node = this.#head; node !== undefined; node = node.next) {
      if (node.watcher !== undefined) due.push(node.watcher);
    }
    while (this.#head !== undefined) this.remove(this.#head);
    for (const watch of due) watch(reason);
  }
}

const watchersOf = new WeakMap<AbortSignal, Watchers>();

/**
 * Calls `watcher` with the signal's reason when `signal` aborts; returns the function that
 * stops watching. Does nothing (and never calls back) for an undefined or already-aborted
 * signal: callers check `signal.aborted` first.
 */
export function watchAbort(signal: AbortSignal | undefined, watcher: Watcher): () => void {
  if (signal === undefined || signal.aborted) return noop;
  let watchers = watchersOf.get(signal);
  if (watchers === undefined) {
    watchers = new Watchers(signal);
    watchersOf.set(signal, watchers);
  }
  const list = watchers;
  const node = list.add(watcher);
  return () => list.remove(node);
}

function noop(): void {}
