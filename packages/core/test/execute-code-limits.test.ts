/**
 * `executeCode`'s bounds on the in-memory pair: the output caps, the wall-time limit and the abort
 * signal, each ending the script and the tool calls it has in flight.
 */
import { describe, expect, it } from "vitest";
import type { ToolDefinition } from "../src/tool.js";
import type { GuestContext } from "./support/memory-guest.js";
import { useMemoryRuns } from "./support/memory-runs.js";
import { deferred } from "./support/rpc.js";

const { pair, execute, run } = useMemoryRuns();

/** Never returns on its own: only a kill ends it. */
const hang = () => new Promise<never>(() => {});

/** A tool that runs until it is cancelled, and reports why it was. */
function waitingTool() {
  const started = deferred();
  const cancelled = deferred<string>();
  const tool: ToolDefinition = {
    name: "wait",
    description: "Waits for its cancellation.",
    parameters: { type: "object" },
    execute: (_args, context) =>
      new Promise((_resolve, reject) => {
        started.resolve();
        context.signal.addEventListener("abort", () => {
          cancelled.resolve(String(context.signal.reason));
          reject(context.signal.reason);
        });
      }),
  };
  return { tool, started: started.promise, cancelled: cancelled.promise };
}

/** Starts a call to `wait` and hangs; the call's answer (a cancellation) is printed if it comes. */
async function callAndHang(script: GuestContext): Promise<never> {
  const codecall = await script.importModule();
  void codecall.call("wait", {}).catch((error: Error) => script.print(`wait: ${error.message}`));
  return hang();
}

describe("output caps", () => {
  it("keeps the head and tail of stdout and says how much was cut", async () => {
    const result = await run(
      (script) => {
        script.print("HEAD" + "x".repeat(996));
        script.print("y".repeat(995) + "TAIL");
      },
      { limits: { maxStdoutBytes: 100, spillBytes: 0 } },
    );
    expect(result).toMatchObject({
      status: "success",
      stdoutTruncated: true,
      stdoutBytesTotal: 2001,
      stdoutBytesCaptured: 100,
      stdoutBytesOmitted: 1901,
    });
    expect(result.output.startsWith("HEAD")).toBe(true);
    expect(result.output.trimEnd().endsWith("TAIL")).toBe(true);
    expect(result.output).toContain("[OUTPUT TRUNCATED - 1,901 bytes omitted out of 2,001 total] ...");
    expect(result.stdoutSpillPath).toBeUndefined();
  });

  it("saves the whole stdout to a file in the environment that the notice names", async () => {
    const memory = pair((script) => {
      script.print("HEAD" + "x".repeat(996));
      script.print("y".repeat(995) + "TAIL");
    });
    const result = await execute(memory, { limits: { maxStdoutBytes: 100 } });
    expect(result.status).toBe("success");
    const path = result.stdoutSpillPath!;
    expect(result.output).toContain(
      `[OUTPUT TRUNCATED - 1,901 bytes omitted out of 2,001 total] [the whole output is in ${path}: read it in parts] ...`,
    );
    const file = new TextDecoder().decode(await memory.environment.readFile(path));
    expect(file).toBe(`HEAD${"x".repeat(996)}\n${"y".repeat(995)}TAIL\n`);
    // The file outlives the run (its run dir is gone); the test cleans it up.
    await memory.environment.remove(path.slice(0, path.lastIndexOf("/")));
  });

  it("still returns the result when the environment fails the spill write", async () => {
    const memory = pair((script) => script.print("w".repeat(500)), { writeFault: (path) => (path.includes("/stdout-") ? "fail" : undefined) });
    const result = await execute(memory, { limits: { maxStdoutBytes: 100 } });
    expect(result).toMatchObject({ status: "success", stdoutTruncated: true });
    expect(result.stdoutSpillPath).toBeUndefined();
    expect(result.output).toMatch(
      /\[the whole output could not be saved to a file: the environment is gone \(writing \/mem\/run-2\/stdout-[0-9a-f]+\.txt\)\]/,
    );
    await memory.environment.remove("/mem/run-2");
  });

  it("says the output could not be saved when the environment was lost under the script", async () => {
    const memory = pair((script) => {
      script.print("v".repeat(500));
      script.loseEnvironment("the container died");
    });
    const result = await execute(memory, { limits: { maxStdoutBytes: 100 } });
    expect(result.status).toBe("error");
    expect(result.output).toContain("[the whole output could not be saved to a file: the environment failed]");
    // The file begun while the script ran is removed; the spill directory (made then) is the test's to clean up.
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect([...memory.environment.files.keys()].filter((path) => path.includes("/stdout-"))).toEqual([]);
    await memory.environment.remove("/mem/run-2");
  });

  it("caps stderr, which a failed run shows", async () => {
    const result = await run(
      (script) => {
        script.printError("e".repeat(5000));
        return 3;
      },
      { limits: { maxStderrBytes: 50 } },
    );
    expect(result).toMatchObject({ status: "error", exitCode: 3, stderrTruncated: true });
    expect(result.stderr.length).toBeLessThan(500);
    expect(result.output).toContain("--- stderr ---");
  });

  it("streams the whole output live, uncapped", async () => {
    const live: string[] = [];
    const decoder = new TextDecoder();
    const result = await run((script) => script.print("z".repeat(300)), {
      limits: { maxStdoutBytes: 10, spillBytes: 0 },
      onStdout: (chunk) => live.push(decoder.decode(chunk)),
    });
    expect(result.stdoutTruncated).toBe(true);
    expect(live.join("")).toBe(`${"z".repeat(300)}\n`);
  });
});

describe("timeout", () => {
  it("kills a script past its wall time, keeps what it printed and cancels its tool calls", async () => {
    const waiting = waitingTool();
    const memory = pair(async (script) => {
      script.print("before the limit");
      return callAndHang(script);
    });
    const result = await execute(memory, { tools: [waiting.tool], limits: { timeoutMs: 200, killGraceMs: 7 } });
    expect(result).toMatchObject({ status: "timeout", error: "Script timed out after 0.2s and was killed.", toolCallsMade: 1 });
    expect(result.output).toBe("before the limit\n\n⏰ Script timed out after 0.2s and was killed.");
    await expect(waiting.cancelled).resolves.toBe("the script timed out");
    expect(memory.environment.spawned[0]!.process.kills).toEqual([{ graceMs: 7 }]);
  });
});

describe("abort", () => {
  it("interrupts the script when the signal aborts, with the reason, and cancels its tool calls", async () => {
    const waiting = waitingTool();
    const controller = new AbortController();
    const result = run(
      async (script) => {
        script.print("working");
        return callAndHang(script);
      },
      { tools: [waiting.tool], signal: controller.signal },
    );
    // Should the run end first (a broken step), the assertions below say how.
    await Promise.race([waiting.started, result]);
    controller.abort("the user pressed stop");
    await expect(result).resolves.toMatchObject({
      status: "interrupted",
      error: "Script was interrupted: the user pressed stop",
      output: "working\n\n[execution interrupted — the user pressed stop]",
    });
    await expect(waiting.cancelled).resolves.toBe("the run was interrupted");
  });

  it("interrupts at once with a signal that has already aborted", async () => {
    const controller = new AbortController();
    controller.abort(new Error("shutting down"));
    const result = await run(hang, { signal: controller.signal });
    expect(result).toMatchObject({
      status: "interrupted",
      error: "Script was interrupted: shutting down",
      output: "[execution interrupted — shutting down]",
    });
  });
});
