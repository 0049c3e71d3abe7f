/**
 * Loaded into the scale section's daemons only (`node --expose-gc --import …/heap-probe.js`),
 * never into the product: on SIGUSR2, after the section has read the daemon's peak RSS and its
 * runs are over, it collects garbage and writes the heap still in use to stderr as one JSON
 * line, `{"retainedHeapBytes":N}`. That is the retained-heap figure (what the daemon keeps
 * between runs); the collection happens after every figure of the runs themselves is taken.
 */
import { writeSync } from 'node:fs';

process.on('SIGUSR2', () => {
  const collect = (globalThis as { gc?: () => void }).gc;
  if (collect === undefined) throw new Error('the heap probe needs node --expose-gc');
  // Twice: the first pass may only free what the second can then finalise.
  collect();
  collect();
  writeSync(2, `\n${JSON.stringify({ retainedHeapBytes: process.memoryUsage().heapUsed })}\n`);
});
