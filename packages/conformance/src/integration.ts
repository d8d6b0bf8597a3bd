/**
 * Gating for suites that need a real service (a Docker engine, an SSH server, ...). Without the
 * service they are skipped with the reason in their title; with `CODECALL_REQUIRE_INTEGRATION=1`
 * (set by CI) a missing service is a failure instead, so CI can never go green by skipping.
 */
import { describe, it } from "vitest";

/** True when CI demands that integration suites run. */
export function integrationRequired(): boolean {
  const env = (globalThis as { process?: { env?: Record<string, string | undefined> } }).process?.env;
  return env?.CODECALL_REQUIRE_INTEGRATION === "1";
}

/**
 * `describe(title, body)` when `unavailableReason` is undefined; otherwise a visible skip, or a
 * failing test when integration is required.
 */
export function describeIntegration(title: string, unavailableReason: string | undefined, body: () => void): void {
  if (unavailableReason === undefined) {
    describe(title, body);
    return;
  }
  if (integrationRequired()) {
    describe(title, () => {
      it("has its service available", () => {
        throw new Error(`${title} cannot run: ${unavailableReason} (CODECALL_REQUIRE_INTEGRATION=1 forbids skipping)`);
      });
    });
    return;
  }
  console.warn(`[codecall] skipping "${title}": ${unavailableReason}`);
  describe.skip(`${title} (skipped: ${unavailableReason})`, body);
}
