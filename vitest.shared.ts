// Test settings shared by every package. Tests start real processes (Python, shells, containers),
// and CI runs them on small machines: generous per-test limits keep a loaded machine from turning
// into a false failure. Timing never decides a pass or fail beyond these safety nets.
import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    testTimeout: 30_000,
    hookTimeout: 60_000,
    exclude: ["node_modules/**", "dist/**"],
  },
});
