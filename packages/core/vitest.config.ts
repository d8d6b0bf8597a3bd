import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    // Unit tests only; integration suites (real services) live under test/integration/.
    exclude: ["test/integration/**", "node_modules/**", "dist/**"],
  },
});
