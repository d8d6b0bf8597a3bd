import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    exclude: ["node_modules/**", "dist/**"],
    // Integration cases create containers and run Python in them; a busy engine is slow, not wrong.
    testTimeout: 60_000,
    hookTimeout: 120_000,
  },
});
