import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/soak/**/*.test.ts'],
    testTimeout: 600_000,
    hookTimeout: 60_000,
    pool: 'forks',
  },
});
