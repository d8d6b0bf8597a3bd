import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    exclude: ["node_modules/**", "dist/**"],
    // Integration cases talk to a real sshd; a slow machine should not turn that into a failure.
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});
