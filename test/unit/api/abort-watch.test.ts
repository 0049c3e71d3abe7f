import { getEventListeners } from 'node:events';
import { describe, expect, it } from 'vitest';
import { watchAbort } from '../../../src/api/abort-watch.js';

describe('watchAbort', () => {
  it('adds one listener to a signal however many requests watch it', () => {
    const controller = new AbortController();

    const stops = Array.from({ length: 50 }, () => watchAbort(controller.signal, () => undefined));

    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(1);
    for (const stop of stops) stop();
  });

  it('calls every watcher still watching, once, with the reason', () => {
    const controller = new AbortController();
    const calls: string[] = [];
    watchAbort(controller.signal, (reason) => calls.push(`a:${String(reason)}`));
    const stopB = watchAbort(controller.signal, (reason) => calls.push(`b:${String(reason)}`));
    watchAbort(controller.signal, (reason) => calls.push(`c:${String(reason)}`));

    stopB();
    controller.abort('stop');
    controller.abort('again');

    expect(calls).toEqual(['a:stop', 'c:stop']);
  });

  it('keeps the others watching whichever are stopped: first, middle, last, twice', () => {
    const controller = new AbortController();
    const calls: number[] = [];
    const stops = Array.from({ length: 6 }, (_, i) => watchAbort(controller.signal, () => calls.push(i)));

    for (const i of [0, 3, 5, 3]) stops[i]?.();
    // Watching again after removals at both ends appends to what is left.
    watchAbort(controller.signal, () => calls.push(6));
    controller.abort();

    expect(calls).toEqual([1, 2, 4, 6]);
  });

  it('calls each watcher once even when watchers stop each other while being called', () => {
    const controller = new AbortController();
    const calls: string[] = [];
    const stops: Array<() => void> = [];
    stops.push(
      watchAbort(controller.signal, () => {
        calls.push('a');
        stops[1]?.();
      }),
    );
    stops.push(watchAbort(controller.signal, () => calls.push('b')));
    stops.push(
      watchAbort(controller.signal, () => {
        calls.push('c');
        stops[2]?.();
      }),
    );

    controller.abort();
    for (const stop of stops) stop();

    expect(calls).toEqual(['a', 'b', 'c']);
  });

  it('never calls back for an absent or already-aborted signal', () => {
    const calls: unknown[] = [];

    watchAbort(undefined, (reason) => calls.push(reason))();
    watchAbort(AbortSignal.abort('early'), (reason) => calls.push(reason))();

    expect(calls).toEqual([]);
  });
});
