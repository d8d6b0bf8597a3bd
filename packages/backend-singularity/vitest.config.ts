import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    exclude: ["node_modules/**", "dist/**"],
    // Every command goes through the (fake) CLI, a Node process per call: slow on a busy machine, not wrong.
    testTimeout: 60_000,
    hookTimeout: 120_000,
  },
});
