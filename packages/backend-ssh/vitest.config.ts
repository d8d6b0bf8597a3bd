import { defineConfig, mergeConfig } from "vitest/config";
import shared from "../../vitest.shared.ts";

// Integration cases talk to a real sshd over many round trips: a minute each on a loaded machine.
export default mergeConfig(shared, defineConfig({ test: { include: ["test/**/*.test.ts"], testTimeout: 60_000 } }));
