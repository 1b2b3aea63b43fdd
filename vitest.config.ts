import { defineConfig } from 'vitest/config';

// Tiers are folders under test/ (`vitest run test/unit` runs one). The unit and
// integration tiers run with the leak check (test/helpers/leak-check.ts): a
// test file that leaves timers or open handles behind fails. The cli, e2e and
// fuzz tiers have their own process and runtime lifecycles and keep their own checks.
const LEAK_CHECKED = ['test/unit/**/*.test.ts', 'test/integration/**/*.test.ts'];

export default defineConfig({
  test: {
    testTimeout: 60_000,
    pool: 'forks',
    projects: [
      { extends: true, test: { name: 'checked', include: LEAK_CHECKED, setupFiles: ['test/helpers/leak-check.ts'] } },
      { extends: true, test: { name: 'process', include: ['test/**/*.test.ts'], exclude: LEAK_CHECKED } },
    ],
  },
});
