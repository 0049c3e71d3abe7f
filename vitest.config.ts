import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts', 'bench/**/*.test.ts'],
    exclude: ['test/soak/**', 'node_modules/**', 'dist/**'],
    testTimeout: 20_000,
    hookTimeout: 20_000,
    pool: 'forks',
    // Most test files wait on servers, child processes and timers, not the CPU: on a 2-core CI
    // machine vitest's default (cores − 1 = one file at a time) left the cores idle for most of the run.
    maxWorkers: 2,
  },
});
