/**
 * `describeApprovals()`: approvals inside a running script, end to end on a backend × transport
 * pair — real Python calling a host tool that needs approval. Approve, deny (a `ToolError` the
 * script catches), approve-for-run (asked once for a loop), an unanswered request (denied when its
 * time is up), no handler (fail closed), a denied call in a loop, and the script's time limit
 * paused while a call waits: a wait far past the limit does not time the script out.
 */
import { afterAll, beforeAll, expect, it } from "vitest";
import {
  defineTool,
  executeCode,
  type ApprovalRequest,
  type Environment,
  type ExecuteCodeOptions,
  type ExecuteCodeResult,
  type RunEvent,
  type Transport,
} from "@codecall/core";
import { RpcErrorCode } from "@codecall/core/protocol";
import { describeIntegration } from "./integration.js";

export interface ApprovalSuiteOptions {
  /** Suite title, e.g. "local + uds". */
  name: string;
  /** Makes the environment for the suite (closed after it). */
  createEnvironment: () => Promise<Environment> | Environment;
  /** The transport(s) to run with. */
  transport: () => Transport | readonly Transport[];
  unavailableReason?: string;
  /** Per-test timeout in ms (default 60 s). */
  testTimeoutMs?: number;
}

/** How long the pause test's script may run outside its approval wait: ample for a loaded remote backend. */
const PAUSE_TEST_LIMIT_MS = 5_000;

export function describeApprovals(options: ApprovalSuiteOptions): void {
  describeIntegration(`approvals in a running script: ${options.name}`, options.unavailableReason, () => {
    const timeout = options.testTimeoutMs ?? 60_000;
    let environment: Environment;
    const ran: string[] = [];

    const save = defineTool({
      name: "save",
      description: "Saves a note (needs approval).",
      parameters: { type: "object", properties: { note: { type: "string" } }, required: ["note"], additionalProperties: false },
      needsApproval: true,
      execute: ({ note }: { note: string }) => {
        ran.push(note);
        return { saved: note };
      },
    });
    const peek = defineTool({
      name: "peek",
      description: "Reads (no approval).",
      parameters: { type: "object", properties: {}, additionalProperties: false },
      execute: () => "peeked",
    });

    const run = (code: string, extra: Partial<ExecuteCodeOptions> = {}): Promise<ExecuteCodeResult> => {
      ran.length = 0;
      return executeCode({ code, environment, transport: options.transport(), tools: [save, peek], ...extra });
    };

    /** Saves each note, printing what came back or the ToolError (code and message); then a last line. */
    const saveEach = (notes: string[]) => `
from codecall import save, ToolError
for note in ${JSON.stringify(notes)}:
    try:
        print(note, "->", save(note)["saved"])
    except ToolError as error:
        print(note, "!!", error.code, error.message)
print("script went on")
`;

    beforeAll(async () => {
      environment = await options.createEnvironment();
    }, timeout * 2);

    afterAll(async () => {
      await environment?.close();
    }, timeout);

    it(
      "runs a call once it is approved, telling the handler which call it is",
      async () => {
        const requests: Omit<ApprovalRequest, "signal">[] = [];
        const result = await run(saveEach(["hello"]), {
          onApproval: ({ signal: _, ...request }) => {
            requests.push(request);
            return "approve";
          },
        });
        expect(result).toMatchObject({ status: "success", output: "hello -> hello\nscript went on\n", toolCallsMade: 1 });
        expect(requests).toEqual([{ tool: "save", args: { note: "hello" }, runId: expect.any(String) as string, callId: "1" }]);
        expect(ran).toEqual(["hello"]);
      },
      timeout,
    );

    it(
      "raises a denial as a ToolError with the reason; the script catches it and goes on",
      async () => {
        const result = await run(saveEach(["keep", "drop"]), {
          onApproval: ({ args }) => (args.note === "drop" ? { type: "deny", reason: "drop is not allowed" } : true),
        });
        expect(result.status).toBe("success");
        expect(result.output).toBe(`keep -> keep\ndrop !! ${RpcErrorCode.ApprovalDenied} Tool call denied: drop is not allowed\nscript went on\n`);
        expect(ran).toEqual(["keep"]);
      },
      timeout,
    );

    it(
      "asks once for a loop of 50 when the answer is approve-for-run",
      async () => {
        let asked = 0;
        const notes = Array.from({ length: 50 }, (_, i) => `n${i}`);
        const result = await run(saveEach(notes), {
          onApproval: () => {
            asked += 1;
            return "approve-for-run";
          },
        });
        expect(result.status).toBe("success");
        expect(asked).toBe(1);
        expect(ran).toEqual(notes);
      },
      timeout,
    );

    it(
      "denies a call whose request gets no answer in time, and the script goes on",
      async () => {
        let request: ApprovalRequest | undefined;
        const result = await run(saveEach(["unanswered"]), {
          approvalTimeoutMs: 1_000,
          onApproval: (asked) => {
            request = asked;
            return new Promise<never>(() => {});
          },
        });
        expect(result.output).toBe(
          `unanswered !! ${RpcErrorCode.ApprovalDenied} Tool call denied: no answer to the approval request within 1 s\nscript went on\n`,
        );
        expect(request?.signal.aborted).toBe(true);
        expect(ran).toEqual([]);
      },
      timeout,
    );

    it(
      "pauses the time limit while a call waits: a wait far past the limit does not time the script out",
      async () => {
        const events: RunEvent[] = [];
        const result = await run(saveEach(["patient"]), {
          limits: { timeoutMs: PAUSE_TEST_LIMIT_MS },
          onEvent: (event) => events.push(event),
          // Answers only after longer than the whole limit: without the pause the script would be killed meanwhile.
          onApproval: async () => {
            await new Promise((resolve) => setTimeout(resolve, PAUSE_TEST_LIMIT_MS + 2_000));
            return true;
          },
        });
        expect(result).toMatchObject({ status: "success", output: "patient -> patient\nscript went on\n" });
        expect(result.durationSeconds * 1000).toBeGreaterThan(PAUSE_TEST_LIMIT_MS);
        const decided = events.find((event) => event.type === "approval-decided");
        expect(decided).toMatchObject({ approved: true, decidedBy: "handler" });
        expect((decided as { waitMs: number }).waitMs).toBeGreaterThan(PAUSE_TEST_LIMIT_MS);
      },
      timeout + PAUSE_TEST_LIMIT_MS * 2,
    );

    it(
      "denies without a handler (fail closed), while tools that need no approval run",
      async () => {
        const result = await run(`${saveEach(["x"])}\nfrom codecall import peek\nprint(peek())`);
        expect(result.output).toBe(
          `x !! ${RpcErrorCode.ApprovalDenied} Tool call denied: save needs approval, and nobody can approve calls in this run\nscript went on\npeeked\n`,
        );
        expect(ran).toEqual([]);
      },
      timeout,
    );

    it(
      "answers a denied call in a loop of 50 every time, and the script goes on",
      async () => {
        let asked = 0;
        const notes = Array.from({ length: 50 }, (_, i) => `d${i}`);
        const result = await run(saveEach(notes), {
          onApproval: () => {
            asked += 1;
            return { type: "deny", reason: "read-only" };
          },
        });
        expect(result.status).toBe("success");
        const lines = result.output.trimEnd().split("\n");
        expect(lines).toEqual([...notes.map((note) => `${note} !! ${RpcErrorCode.ApprovalDenied} Tool call denied: read-only`), "script went on"]);
        expect(asked).toBe(50);
        expect(result.toolCallsMade).toBe(50);
        expect(ran).toEqual([]);
      },
      timeout,
    );
  });
}
