/**
 * The terminal approver's logic over real streams (a PassThrough for the keyboard, one for the
 * screen): answers, a question at a time in order, re-asking on nonsense, withdrawn questions,
 * and the end of the input denying what is open. Whether stdin is a terminal is the caller's
 * check, driven through a real pseudo-terminal in approvals.test.ts.
 */
import { PassThrough } from "node:stream";
import type { ApprovalDecision, ApprovalRequest } from "@codecall/core";
import { describe, expect, it } from "vitest";
import { createTerminalApprover, USER_DENIAL } from "../src/approval-prompt.js";

function terminal() {
  const keyboard = new PassThrough();
  const screen = new PassThrough();
  let shown = "";
  screen.on("data", (chunk: Buffer) => (shown += chunk.toString()));
  const approver = createTerminalApprover(keyboard, screen, ["hunter2-secret-value"]);
  return { keyboard, approver, shown: () => shown };
}

function request(tool: string, args: Record<string, unknown> = {}, signal = new AbortController().signal): ApprovalRequest {
  return { tool, args, runId: "run", callId: "1", signal };
}

/** Resolves once the screen shows `count` questions. */
async function questionsShown(shown: () => string, count: number): Promise<void> {
  while (shown().split("[a]lways for this run: ").length - 1 < count) await new Promise((resolve) => setTimeout(resolve, 5));
}

describe("createTerminalApprover", () => {
  it.each<[string, ApprovalDecision]>([
    ["y", "approve"],
    ["YES", "approve"],
    ["n", { type: "deny", reason: USER_DENIAL }],
    ["no", { type: "deny", reason: USER_DENIAL }],
    [" a ", "approve-for-run"],
    ["always", "approve-for-run"],
  ])("reads %j as %j", async (answer, decision) => {
    const { keyboard, approver, shown } = terminal();
    const decided = approver.onApproval(request("save", { note: "hi" }));
    await questionsShown(shown, 1);
    keyboard.write(`${answer}\n`);
    await expect(decided).resolves.toEqual(decision);
    expect(shown()).toBe('codecall: approve save({"note":"hi"})? [y]es / [n]o / [a]lways for this run: ');
    approver.close();
  });

  it("asks again after an answer it does not understand", async () => {
    const { keyboard, approver, shown } = terminal();
    const decided = approver.onApproval(request("save"));
    await questionsShown(shown, 1);
    keyboard.write("maybe\n");
    keyboard.write("y\n");
    await expect(decided).resolves.toBe("approve");
    expect(shown()).toContain("Please answer y (yes), n (no) or a (always for this run): ");
    approver.close();
  });

  it("asks one question at a time, in order, and masks secrets in the arguments", async () => {
    const { keyboard, approver, shown } = terminal();
    const first = approver.onApproval(request("first", { token: "hunter2-secret-value" }));
    const second = approver.onApproval(request("second"));
    await questionsShown(shown, 1);
    expect(shown()).not.toContain("second");
    expect(shown()).not.toContain("hunter2-secret-value");
    keyboard.write("n\n");
    await expect(first).resolves.toEqual({ type: "deny", reason: USER_DENIAL });
    await questionsShown(shown, 2);
    expect(shown()).toContain("approve second({})?");
    keyboard.write("y\n");
    await expect(second).resolves.toBe("approve");
    approver.close();
  });

  it("drops a withdrawn question, with a word when it was on screen, and asks the next", async () => {
    const { keyboard, approver, shown } = terminal();
    const onScreen = new AbortController();
    const waiting = new AbortController();
    const first = approver.onApproval(request("first", {}, onScreen.signal));
    const second = approver.onApproval(request("second", {}, waiting.signal));
    const third = approver.onApproval(request("third"));
    await questionsShown(shown, 1);
    waiting.abort("second was approved for the rest of the run");
    onScreen.abort("no answer within 300 s");
    await first;
    await second;
    await questionsShown(shown, 2);
    expect(shown()).toContain("(withdrawn: no answer within 300 s)\ncodecall: approve third({})?");
    expect(shown()).not.toContain("approve second");
    keyboard.write("y\n");
    await expect(third).resolves.toBe("approve");
    approver.close();
  });

  it("denies what is open and everything later when the input ends", async () => {
    const { keyboard, approver, shown } = terminal();
    const open = approver.onApproval(request("open"));
    await questionsShown(shown, 1);
    keyboard.end();
    const denied = { type: "deny", reason: "no answer: the terminal's input ended" };
    await expect(open).resolves.toEqual(denied);
    await expect(approver.onApproval(request("later"))).resolves.toEqual(denied);
  });
});
