/**
 * A named record of the state store that a part of the daemon keeps across restarts (the
 * notifications' transitions, the unclaimed objects already reported): read once at start,
 * saved after each change, one write at a time, only when its text changed. A failed save is
 * logged and costs at most something told twice after a restart; it never fails a run.
 */
import type { Logger } from '../log.js';

/** What the daemon hands a part for its record (daemon.ts reads and writes it through the store). */
export interface RecordMemory {
  /** The record as the last daemon saved it; undefined when there is none. */
  readonly initial: string | undefined;
  save(text: string): Promise<void>;
}

export interface RecordWriter {
  /** Saves `value` (as JSON) unless it is what was saved last. Returns at once. */
  save(value: unknown): void;
  /** Resolves when every save asked for has ended. */
  flush(): Promise<void>;
}

/** Writes through `memory`; `event` names the warning of a failed save (`notify.state-save-failed`). */
export function recordWriter(memory: RecordMemory, logger: Logger, event: string): RecordWriter {
  let written = memory.initial;
  let pending: Promise<void> = Promise.resolve();
  return {
    save(value) {
      const text = `${JSON.stringify(value)}\n`;
      if (text === written) return;
      written = text;
      pending = pending.then(() =>
        memory.save(text).catch((err: unknown) => {
          logger.warn({ event, reason: (err as Error).message }, 'not saved');
        }),
      );
    },
    flush: () => pending,
  };
}
