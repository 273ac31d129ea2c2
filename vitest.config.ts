import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 20_000,
    hookTimeout: 20_000,
    pool: 'forks',
    // A HOME and XDG_DATA_HOME of the run's own; fails the run if anything appears in the user's.
    globalSetup: ['test/support/global-home.ts'],
  },
});
