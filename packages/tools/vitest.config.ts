import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    exclude: ["node_modules/**", "dist/**"],
    // Every case starts real processes; a slow machine should not turn that into a failure.
    testTimeout: 30_000,
  },
});
