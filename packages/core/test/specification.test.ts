/**
 * executeCode and createCodeTool refuse an environment or transport written for another contract
 * version, before they touch either, naming both versions.
 */
import { describe, expect, it } from "vitest";
import { createCodeTool } from "../src/code-tool.js";
import type { Environment } from "../src/environment.js";
import { CodecallError } from "../src/errors.js";
import { executeCode } from "../src/execute/execute-code.js";
import type { Transport } from "../src/transport.js";
import { recorder } from "./support/recorder.js";

async function refusal(run: () => Promise<unknown>): Promise<CodecallError> {
  const error = await run().then(
    () => undefined,
    (reason: unknown) => reason,
  );
  if (!CodecallError.isInstance(error, "INCOMPATIBLE_PLUGIN")) throw new Error(`expected INCOMPATIBLE_PLUGIN, got ${String(error)}`);
  return error;
}

/** `target` with `specificationVersion` replaced, every other property still the recorder's. */
function restated<T extends object>(target: T, version: string): T {
  return new Proxy(target, { get: (inner, property) => (property === "specificationVersion" ? version : Reflect.get(inner, property)) });
}

describe("contract versions in executeCode", () => {
  it("refuses an environment of another version before using it", async () => {
    const { environment, transport, used } = recorder();
    const error = await refusal(() => executeCode({ code: "print(1)", environment: restated<Environment>(environment, "v7"), transport }));
    expect(error.message).toBe(
      'The environment (backend "fake") implements Environment specification v7, but this @codecall/core implements Environment specification v1. Install versions of the two that match.',
    );
    expect(used).toEqual([]);
  });

  it("refuses any transport candidate of another version before opening one", async () => {
    const { environment, transport, used } = recorder();
    const stale = restated<Transport>({ ...transport, id: "stale" }, "v0");
    const error = await refusal(() => executeCode({ code: "print(1)", environment, transport: [transport, stale] }));
    expect(error.message).toContain('The transport "stale" implements Transport specification v0');
    expect(used).toEqual([]);
  });

  it("createCodeTool refuses them when it is built", async () => {
    const { environment, transport, used } = recorder();
    const error = await refusal(async () => createCodeTool({ environment: restated<Environment>(environment, "v2"), transport }));
    expect(error.details).toEqual({ kind: "environment", expected: "v1", found: "v2" });
    expect(used).toEqual([]);
  });
});
