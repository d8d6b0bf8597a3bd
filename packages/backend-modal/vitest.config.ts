import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    exclude: ["node_modules/**", "dist/**"],
    // The SDK reads its config file when it is imported: never the developer's ~/.modal.toml, and no
    // profile or environment from the shell. Each test file points MODAL_SERVER_URL at its own fake.
    env: {
      MODAL_CONFIG_PATH: "/nonexistent/codecall-test-modal.toml",
      MODAL_PROFILE: "",
      MODAL_ENVIRONMENT: "",
      MODAL_LOGLEVEL: "",
    },
    // Every command is a few gRPC calls to the fake and a process on this machine: slow on a busy machine, not wrong.
    testTimeout: 60_000,
    hookTimeout: 120_000,
  },
});
