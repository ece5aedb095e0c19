import { defineConfig } from "vitest/config";

/**
 * Two groups, run one after the other: every test file in parallel first, then the load test alone.
 * The load test measures replicas under platforms' real deadlines (Discord's 3 s for an interaction's
 * first answer), so it runs on a machine nothing else in the suite is loading.
 */
const ALONE = ["test/scale/**/*.test.ts"];

const shared = {
  testTimeout: 30_000,
  hookTimeout: 30_000,
  pool: "forks" as const,
  setupFiles: ["test/setup-platforms.ts"],
};

export default defineConfig({
  test: {
    projects: [
      {
        test: {
          ...shared,
          name: "suite",
          include: ["test/**/*.test.ts"],
          exclude: ALONE,
          sequence: { groupOrder: 0 },
        },
      },
      {
        test: {
          ...shared,
          name: "alone",
          include: ALONE,
          maxWorkers: 1,
          sequence: { groupOrder: 1 },
        },
      },
    ],
  },
});
