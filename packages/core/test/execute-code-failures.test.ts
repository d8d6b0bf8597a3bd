/**
 * `executeCode` when something around the script fails, on the in-memory pair: a transport that
 * cannot open gives way to the next, and a failing environment step becomes a result with status
 * `error` — and every path still closes what was opened and removes the run dir (each pair is
 * checked for leftovers after each test).
 */
import { describe, expect, it, vi } from "vitest";
import { CodecallError } from "../src/errors.js";
import { resolveTransports } from "../src/resolver.js";
import type { GuestContext } from "./support/memory-guest.js";
import { useMemoryRuns } from "./support/memory-runs.js";
import { echoTool } from "./support/rpc.js";

const { pair, execute } = useMemoryRuns();

/** A script that calls a tool, so it works only with the client of the transport that serves it. */
async function echoThroughTool(script: GuestContext): Promise<void> {
  const codecall = await script.importModule();
  script.print(await codecall.call("echo", { text: "served" }));
}

describe("transport fallback", () => {
  it("falls back to the next candidate, rewrites the module for it and says why", async () => {
    const memory = pair(echoThroughTool);
    const relay = memory.createTransport({ id: "relay", openError: new Error("the relay could not start") });
    const fallback = memory.createTransport({ id: "fallback" });
    const result = await execute(memory, { tools: [echoTool], transport: [relay, fallback] });
    expect(result).toMatchObject({
      status: "success",
      output: "served\n",
      transport: "fallback",
      transportsSkipped: ["relay: the relay could not start"],
    });
    expect([relay.opens, fallback.opens]).toEqual([1, 1]);
  });

  it('falls back to an "auto" transport the resolver loads only then, with its client', async () => {
    const memory = pair(echoThroughTool);
    const uds = memory.createTransport({ id: "uds", openError: new Error("no socket here") });
    const stream = memory.createTransport({ id: "stream" });
    const loaded: string[] = [];
    const modules: Record<string, unknown> = {
      "@codecall/transport-uds": { createTransport: () => uds },
      "@codecall/transport-stream": { createTransport: () => stream },
    };
    const importModule = async (specifier: string) => {
      loaded.push(specifier);
      return modules[specifier] ?? { createTransport: () => memory.createTransport({ id: "file" }) };
    };
    const transport = await resolveTransports("auto", { importModule, environment: memory.environment });
    expect(loaded).toEqual(["@codecall/transport-uds"]);
    const result = await execute(memory, { tools: [echoTool], transport });
    expect(result).toMatchObject({ status: "success", output: "served\n", transport: "stream", transportsSkipped: ["uds: no socket here"] });
    expect(loaded).toEqual(["@codecall/transport-uds", "@codecall/transport-stream"]);
  });

  it("skips candidates that do not support the environment without opening them", async () => {
    const memory = pair(echoThroughTool);
    const unsupported = memory.createTransport({ id: "elsewhere", supports: false });
    const result = await execute(memory, { tools: [echoTool], transport: [unsupported, memory.transport] });
    expect(result).toMatchObject({ status: "success", transport: "memory" });
    expect(result.transportsSkipped).toBeUndefined();
    expect(unsupported.opens).toBe(0);
  });

  it("returns an error naming every candidate's failure when none opens", async () => {
    const memory = pair(echoThroughTool);
    const first = memory.createTransport({ id: "first", openError: new Error("port in use") });
    const second = memory.createTransport({ id: "second", openError: new Error("no relay") });
    const spawn = vi.spyOn(memory.environment, "spawn");
    const result = await execute(memory, { transport: [first, second] });
    expect(result).toMatchObject({
      status: "error",
      exitCode: null,
      transport: "first",
      error: "The memory environment could not be reached by any transport: first: port in use; second: no relay",
    });
    expect(spawn).not.toHaveBeenCalled();
  });
});

describe("a failing environment", () => {
  const broken = new Error("the disk is full");

  it("returns an error when the run dir cannot be made, and opens nothing", async () => {
    const memory = pair(echoThroughTool);
    vi.spyOn(memory.environment, "tempDir").mockRejectedValue(broken);
    const result = await execute(memory);
    expect(result).toMatchObject({
      status: "error",
      exitCode: null,
      output: "memory environment failed: the disk is full",
      error: "memory environment failed: the disk is full",
    });
    expect(memory.transport.opens).toBe(0);
  });

  it("returns an error when its env cannot be read", async () => {
    const memory = pair(echoThroughTool);
    vi.spyOn(memory.environment, "defaultEnv").mockRejectedValue(broken);
    const result = await execute(memory);
    expect(result).toMatchObject({ status: "error", error: "memory environment failed: the disk is full" });
    expect(memory.transport.opens).toBe(0);
  });

  it("returns an error when the guest cannot be written, and closes the transport that opened meanwhile", async () => {
    const memory = pair(echoThroughTool);
    vi.spyOn(memory.environment, "writeFile").mockRejectedValue(broken);
    const result = await execute(memory);
    expect(result).toMatchObject({ status: "error", error: "memory environment failed: the disk is full" });
    expect(memory.transport.sessions).toMatchObject([{ runDir: "/mem/run-1", closed: true }]);
  });

  it("reports the transport's failure before a failed write", async () => {
    const memory = pair(echoThroughTool);
    const failing = memory.createTransport({ id: "only", openError: new Error("no relay") });
    vi.spyOn(memory.environment, "writeFile").mockRejectedValue(broken);
    const result = await execute(memory, { transport: failing });
    expect(result.error).toBe("The memory environment could not be reached by any transport: only: no relay");
  });

  it("returns an error when the script cannot be started", async () => {
    const memory = pair(echoThroughTool);
    vi.spyOn(memory.environment, "spawn").mockRejectedValue(new Error("fork failed"));
    const result = await execute(memory);
    expect(result).toMatchObject({ status: "error", exitCode: null, error: "memory environment failed: fork failed", transport: "memory" });
    expect(memory.transport.sessions).toMatchObject([{ closed: true }]);
  });

  it("keeps what the script printed when the environment is lost under it", async () => {
    const memory = pair(async (script) => {
      const codecall = await script.importModule();
      script.print(await codecall.call("echo", { text: "first call" }));
      script.loseEnvironment("the container died");
    });
    const result = await execute(memory, { tools: [echoTool] });
    expect(result).toMatchObject({
      status: "error",
      exitCode: null,
      toolCallsMade: 1,
      error: "memory environment failed: the container died",
      output: "first call\n\nmemory environment failed: the container died",
    });
  });

  it("still returns the result when cleaning up fails", async () => {
    const memory = pair((script) => script.print("done"));
    const remove = vi.spyOn(memory.environment, "remove").mockRejectedValueOnce(new Error("gone"));
    const transport = memory.createTransport({ closeError: new Error("already closed") });
    const result = await execute(memory, { transport });
    expect(result).toMatchObject({ status: "success", output: "done\n" });
    expect(remove).toHaveBeenCalledWith("/mem/run-1");
    // The run dir is still there (the removal failed): clear it so the leftover check sees only the rest.
    await memory.environment.remove("/mem/run-1");
  });

  it("refuses invalid options by throwing, before it touches anything", async () => {
    const memory = pair(echoThroughTool);
    const tempDir = vi.spyOn(memory.environment, "tempDir");
    await expect(execute(memory, { limits: { timeoutMs: -1 } })).rejects.toSatisfy((error) => CodecallError.isInstance(error, "INVALID_OPTIONS"));
    await expect(execute(memory, { moduleName: "not-a-module" })).rejects.toThrow();
    await expect(execute(memory, { transport: memory.createTransport({ supports: false }) })).rejects.toSatisfy((error) =>
      CodecallError.isInstance(error, "NO_SUPPORTED_TRANSPORT"),
    );
    expect(tempDir).not.toHaveBeenCalled();
  });
});
