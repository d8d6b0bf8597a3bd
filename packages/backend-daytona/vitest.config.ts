import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    exclude: ["node_modules/**", "dist/**"],
    // Every command runs through a (fake) daemon's session shell: slow on a busy machine, not wrong.
    testTimeout: 60_000,
    hookTimeout: 120_000,
  },
});
