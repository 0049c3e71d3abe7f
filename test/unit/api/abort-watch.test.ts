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

  it('never calls back for an absent or already-aborted signal', () => {
    const calls: unknown[] = [];

    watchAbort(undefined, (reason) => calls.push(reason))();
    watchAbort(AbortSignal.abort('early'), (reason) => calls.push(reason))();

    expect(calls).toEqual([]);
  });
});
