/**
 * Approvals on the in-memory pair: a call of a tool that needs approval waits in the host for
 * `onApproval`, the script sees a denial as a ToolError it can catch, approve-for-run asks once,
 * an unanswered request is denied when its time is up, and without a handler such calls fail
 * closed. While a call waits, the script's time limit is paused.
 */
import { describe, expect, it } from "vitest";
import type { ApprovalDecision, ApprovalRequest } from "../src/approval.js";
import { createCodeTool } from "../src/code-tool.js";
import type { RunEvent } from "../src/events.js";
import { RpcErrorCode } from "../src/protocol/messages.js";
import type { ToolDefinition } from "../src/tool.js";
import type { GuestContext } from "./support/memory-guest.js";
import { useMemoryRuns } from "./support/memory-runs.js";
import { deferred } from "./support/rpc.js";

const { pair, execute, run } = useMemoryRuns();

/** A tool that needs approval for every call, and counts the calls that ran. */
function writeTool(needsApproval: ToolDefinition["needsApproval"] = true) {
  const ran: string[] = [];
  const tool: ToolDefinition<{ path: string }> = {
    name: "write",
    description: "Writes a file.",
    parameters: { type: "object", properties: { path: { type: "string" } }, required: ["path"] },
    needsApproval,
    execute: ({ path }) => {
      ran.push(path);
      return `wrote ${path}`;
    },
  };
  return { tool, ran };
}

const readTool: ToolDefinition = { name: "read", description: "Reads.", parameters: { type: "object" }, execute: () => "content" };

/** Calls `write` for each path, printing the result or the ToolError (message and code). */
function writeEach(paths: string[]) {
  return async (script: GuestContext) => {
    const codecall = await script.importModule();
    for (const path of paths) {
      try {
        script.print(`${path}: ${String(await codecall.call("write", { path }))}`);
      } catch (error) {
        script.print(`${path}: ToolError ${(error as { code: number }).code} ${(error as Error).message}`);
      }
    }
  };
}

describe("approvals", () => {
  it("runs an approved call and tells the handler which call it is", async () => {
    const { tool, ran } = writeTool();
    const requests: Omit<ApprovalRequest, "signal">[] = [];
    const result = await run(writeEach(["a.txt"]), {
      tools: [tool],
      onApproval: ({ signal, ...request }) => {
        expect(signal.aborted).toBe(false);
        requests.push(request);
        return "approve";
      },
    });
    expect(result).toMatchObject({ status: "success", output: "a.txt: wrote a.txt\n", toolCallsMade: 1 });
    expect(ran).toEqual(["a.txt"]);
    expect(requests).toEqual([{ tool: "write", args: { path: "a.txt" }, runId: expect.any(String) as string, callId: "1" }]);
  });

  it("raises a denial as a ToolError the script catches, with the reason, and goes on", async () => {
    const { tool, ran } = writeTool();
    const result = await run(writeEach(["secret.txt", "b.txt"]), {
      tools: [tool],
      onApproval: ({ args }) => (args.path === "secret.txt" ? { type: "deny", reason: "not that file" } : true),
    });
    expect(result.status).toBe("success");
    expect(result.output).toBe(`secret.txt: ToolError ${RpcErrorCode.ApprovalDenied} Tool call denied: not that file\nb.txt: wrote b.txt\n`);
    expect(ran).toEqual(["b.txt"]);
    // A denied call counts: the budget bounds approval requests too.
    expect(result.toolCallsMade).toBe(2);
  });

  it.each<[string, ApprovalDecision]>([
    ["false", false],
    ["the word deny", "deny"],
    ["deny with a blank reason", { type: "deny", reason: "  " }],
  ])("gives a default reason for %s", async (_, answer) => {
    const { tool } = writeTool();
    const result = await run(writeEach(["x"]), { tools: [tool], onApproval: () => answer });
    expect(result.output).toBe(`x: ToolError ${RpcErrorCode.ApprovalDenied} Tool call denied: denied by the approver\n`);
  });

  it("asks once for a loop when the answer is approve-for-run", async () => {
    const { tool, ran } = writeTool();
    let asked = 0;
    const paths = Array.from({ length: 200 }, (_, i) => `f${i}`);
    const result = await run(writeEach(paths), {
      tools: [tool],
      limits: { maxToolCalls: 200 },
      onApproval: () => {
        asked += 1;
        return { type: "approve-for-run" };
      },
    });
    expect(result.status).toBe("success");
    expect(asked).toBe(1);
    expect(ran).toEqual(paths);
  });

  it("settles the calls still waiting when their tool is approved for the run, and withdraws their requests", async () => {
    const { tool, ran } = writeTool();
    const requests: ApprovalRequest[] = [];
    const allAsked = deferred();
    const events: RunEvent[] = [];
    const result = await run(
      async (script) => {
        const codecall = await script.importModule();
        const answers = await Promise.all(["p1", "p2", "p3"].map((path) => codecall.call("write", { path })));
        script.print(answers.join(","));
      },
      {
        tools: [tool],
        onEvent: (event) => events.push(event),
        onApproval: async (request) => {
          requests.push(request);
          if (requests.length === 3) allAsked.resolve();
          await allAsked.promise;
          // The second asked approves for the run; the others never answer.
          if (request === requests[1]) return "approve-for-run" as const;
          return new Promise<never>(() => {});
        },
      },
    );
    expect(result).toMatchObject({ status: "success", output: "wrote p1,wrote p2,wrote p3\n" });
    expect(ran.sort()).toEqual(["p1", "p2", "p3"]);
    expect(requests.map((request) => request.signal.aborted)).toEqual([true, false, true]);
    expect(String(requests[0]!.signal.reason)).toBe("write was approved for the rest of the run");
    const decided = events.filter((event) => event.type === "approval-decided");
    expect(decided.map((event) => [event.callId, event.decision, event.decidedBy]).sort()).toEqual([
      ["1", "approve", "run-approval"],
      ["2", "approve-for-run", "handler"],
      ["3", "approve", "run-approval"],
    ]);
  });

  it("denies a call whose request gets no answer in time, and withdraws the request", async () => {
    const { tool, ran } = writeTool();
    let request: ApprovalRequest | undefined;
    const result = await run(writeEach(["late"]), {
      tools: [tool],
      approvalTimeoutMs: 50,
      onApproval: (asked) => {
        request = asked;
        return new Promise<never>(() => {});
      },
    });
    expect(result.output).toBe(`late: ToolError ${RpcErrorCode.ApprovalDenied} Tool call denied: no answer to the approval request within 50 ms\n`);
    expect(ran).toEqual([]);
    expect(request?.signal.aborted).toBe(true);
  });

  it("denies every call that needs approval when the run has no handler (fail closed), others run", async () => {
    const { tool, ran } = writeTool();
    const result = await run(
      async (script) => {
        const codecall = await script.importModule();
        await writeEach(["a"])(script);
        script.print(String(await codecall.call("read", {})));
      },
      { tools: [tool, readTool] },
    );
    expect(result.output).toBe(
      `a: ToolError ${RpcErrorCode.ApprovalDenied} Tool call denied: write needs approval, and nobody can approve calls in this run\ncontent\n`,
    );
    expect(ran).toEqual([]);
  });

  it("answers a denied call in a loop of 50, every time, and the script goes on", async () => {
    const { tool, ran } = writeTool();
    let asked = 0;
    const paths = Array.from({ length: 50 }, (_, i) => `n${i}`);
    const result = await run(
      async (script) => {
        await writeEach(paths)(script);
        script.print("after the loop");
      },
      {
        tools: [tool],
        onApproval: () => {
          asked += 1;
          return { type: "deny", reason: "read-only session" };
        },
      },
    );
    expect(result.status).toBe("success");
    const lines = result.output.trimEnd().split("\n");
    expect(lines).toHaveLength(51);
    expect(lines.slice(0, 50)).toEqual(paths.map((path) => `${path}: ToolError ${RpcErrorCode.ApprovalDenied} Tool call denied: read-only session`));
    expect(lines[50]).toBe("after the loop");
    expect(asked).toBe(50);
    expect(ran).toEqual([]);
    expect(result.toolCallsMade).toBe(50);
  });

  it("stops asking once the budget is spent: the call past it is refused without a request", async () => {
    const { tool } = writeTool();
    let asked = 0;
    const result = await run(writeEach(["1", "2", "3"]), {
      tools: [tool],
      limits: { maxToolCalls: 2 },
      onApproval: () => {
        asked += 1;
        return false;
      },
    });
    expect(asked).toBe(2);
    expect(result.output.split("\n")[2]).toBe(
      `3: ToolError ${RpcErrorCode.ToolCallLimit} Tool call limit reached (2). No more tool calls allowed in this execution.`,
    );
  });

  it("asks only for the calls a needsApproval function picks, with the call's context", async () => {
    const contexts: unknown[] = [];
    const { tool, ran } = writeTool((args: { path: string }, context) => {
      contexts.push({ runId: typeof context.runId, callId: context.callId, signal: context.signal instanceof AbortSignal });
      return args.path.startsWith("/etc/");
    });
    const asked: unknown[] = [];
    const result = await run(writeEach(["/tmp/a", "/etc/passwd"]), {
      tools: [tool],
      onApproval: ({ args }) => {
        asked.push(args);
        return false;
      },
    });
    expect(result.output).toBe(
      `/tmp/a: wrote /tmp/a\n/etc/passwd: ToolError ${RpcErrorCode.ApprovalDenied} Tool call denied: denied by the approver\n`,
    );
    expect(asked).toEqual([{ path: "/etc/passwd" }]);
    expect(ran).toEqual(["/tmp/a"]);
    expect(contexts).toEqual([
      { runId: "string", callId: "1", signal: true },
      { runId: "string", callId: "2", signal: true },
    ]);
  });

  it.each<[string, (args: { path: string }) => unknown]>([
    [
      "throws",
      () => {
        throw new Error("rule broke");
      },
    ],
    ["rejects", () => Promise.reject(new Error("rule broke"))],
    ["returns nothing", () => undefined],
  ])("asks when the needsApproval function %s (fail closed)", async (_, rule) => {
    const { tool } = writeTool(rule as ToolDefinition["needsApproval"]);
    let asked = 0;
    const result = await run(writeEach(["x"]), {
      tools: [tool],
      onApproval: () => {
        asked += 1;
        return true;
      },
    });
    expect(asked).toBe(1);
    expect(result.output).toBe("x: wrote x\n");
  });

  it.each<[string, () => unknown]>([
    [
      "throws",
      () => {
        throw new Error("prompt crashed with /secret/path");
      },
    ],
    ["rejects", () => Promise.reject(new Error("prompt crashed"))],
    ["answers nonsense", () => "yes please"],
    ["answers an object without a type", () => ({ approved: true })],
  ])("denies when the handler %s, without quoting its error", async (_, handler) => {
    const { tool, ran } = writeTool();
    const events: RunEvent[] = [];
    const result = await run(writeEach(["x"]), {
      tools: [tool],
      onApproval: handler as () => ApprovalDecision,
      onEvent: (event) => events.push(event),
    });
    expect(result.output).toMatch(
      new RegExp(
        `^x: ToolError ${RpcErrorCode.ApprovalDenied} Tool call denied: the approval (could not be obtained|handler gave no valid answer)\\n$`,
      ),
    );
    expect(ran).toEqual([]);
    expect(events.find((event) => event.type === "approval-decided")).toMatchObject({ decidedBy: "handler-error", approved: false });
  });

  it("pauses the time limit while a call waits: a wait far past the limit does not time the script out", async () => {
    const { tool } = writeTool();
    const limitMs = 200;
    let waitedMs = 0;
    const result = await run(writeEach(["slow"]), {
      tools: [tool],
      limits: { timeoutMs: limitMs },
      onApproval: async () => {
        const started = performance.now();
        await new Promise((resolve) => setTimeout(resolve, limitMs * 4));
        waitedMs = performance.now() - started;
        return true;
      },
    });
    expect(waitedMs).toBeGreaterThan(limitMs);
    expect(result).toMatchObject({ status: "success", output: "slow: wrote slow\n" });
  });

  it("still times out a script that runs past its limit outside the waits", async () => {
    const { tool } = writeTool();
    const result = await run(
      async (script) => {
        await writeEach(["ok"])(script);
        await new Promise<never>(() => {});
      },
      { tools: [tool], limits: { timeoutMs: 150, killGraceMs: 5 }, onApproval: () => true },
    );
    expect(result.status).toBe("timeout");
  });

  it("moves the in-environment backstop out by the longest total approval wait", async () => {
    const { tool } = writeTool();
    const withApprover = pair(() => {});
    await execute(withApprover, { tools: [tool], limits: { maxToolCalls: 3 }, approvalTimeoutMs: 1_000, onApproval: () => true });
    expect(withApprover.environment.spawned[0]!.options.timeoutMs).toBe(300_000 + 5_000 + 5_000 + 3 * 1_000);
    // Without an approver nothing can wait: the backstop stays where it was.
    const without = pair(() => {});
    await execute(without, { tools: [tool], limits: { maxToolCalls: 3 }, approvalTimeoutMs: 1_000 });
    expect(without.environment.spawned[0]!.options.timeoutMs).toBe(300_000 + 5_000 + 5_000);
  });

  it("withdraws a request and cancels the call when the run is interrupted during the wait", async () => {
    const { tool, ran } = writeTool();
    const controller = new AbortController();
    let request: ApprovalRequest | undefined;
    const events: RunEvent[] = [];
    const result = await run(writeEach(["never"]), {
      tools: [tool],
      signal: controller.signal,
      onEvent: (event) => events.push(event),
      onApproval: (asked) => {
        request = asked;
        setTimeout(() => controller.abort("the user left"), 10);
        return new Promise<never>(() => {});
      },
    });
    expect(result.status).toBe("interrupted");
    expect(request?.signal.aborted).toBe(true);
    expect(ran).toEqual([]);
    expect(events.find((event) => event.type === "approval-decided")).toMatchObject({ decidedBy: "cancelled", approved: false });
    expect(events.find((event) => event.type === "tool-call-end")).toMatchObject({ outcome: "cancelled", ok: false });
  });

  it("lets other calls run while one waits for approval", async () => {
    const { tool } = writeTool();
    const release = deferred<ApprovalDecision>();
    let readsDone = 0;
    const result = await run(
      async (script) => {
        const codecall = await script.importModule();
        const waiting = codecall.call("write", { path: "w" });
        for (let i = 0; i < 5; i += 1) {
          await codecall.call("read", {});
          readsDone += 1;
        }
        release.resolve(true);
        script.print(String(await waiting), readsDone);
      },
      { tools: [tool, readTool], onApproval: () => release.promise },
    );
    expect(result.output).toBe("wrote w 5\n");
  });

  it("refuses approvalTimeoutMs that is not a positive whole number of ms", async () => {
    const memory = pair(() => {});
    for (const approvalTimeoutMs of [0, -1, 1.5, Number.NaN, "100" as unknown as number, 400 * 24 * 3600 * 1000]) {
      await expect(execute(memory, { approvalTimeoutMs })).rejects.toMatchObject({ code: "INVALID_OPTIONS" });
    }
  });

  it("takes a call's own approver and event listener through the execute_code tool", async () => {
    const { tool, ran } = writeTool();
    const memory = pair(writeEach(["per-call"]));
    const toolEvents: string[] = [];
    const callEvents: string[] = [];
    const codeTool = createCodeTool({
      environment: memory.environment,
      transport: memory.transport,
      tools: [tool],
      env: { host: {} },
      canApprove: true,
      onApproval: () => ({ type: "deny", reason: "the tool-level approver says no" }),
      onEvent: (event) => toolEvents.push(event.type),
    });
    expect(codeTool.description).toContain("Approval: calls to write need approval. Such a call waits");
    const result = await codeTool.execute(
      { code: "x" },
      {
        onApproval: ({ args }) => (args.path === "per-call" ? "approve" : "deny"),
        onEvent: (event) => {
          callEvents.push(event.type);
          throw new Error("a listener that throws breaks nothing");
        },
      },
    );
    expect(result.output).toBe("per-call: wrote per-call\n");
    expect(ran).toEqual(["per-call"]);
    expect(callEvents).toEqual(toolEvents);
    expect(callEvents).toContain("approval-decided");
  });
});
