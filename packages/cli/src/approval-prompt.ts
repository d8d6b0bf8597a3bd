/**
 * Approvals on the terminal: a call that needs approval is put to the user as one question,
 * `approve save({"note": "hi"})? [y]es / [n]o / [a]lways for this run`, answered with a line.
 * Questions are asked one at a time, in the order the calls came; a question whose request is
 * withdrawn (no answer in time, the run ended, its tool approved for the run meanwhile) is
 * dropped, with a word if it was on screen. When the input ends, every open and later question is
 * denied. The streams are parameters, so the logic is tested with plain streams; whether stdin is
 * a terminal at all is decided by the caller (see `approvalHandlerFor`).
 */
import { createInterface } from "node:readline";
import { describeValue, redactSecrets, type ApprovalDecision, type ApprovalHandler, type ApprovalRequest } from "@codecall/core";

export interface TerminalApprover {
  onApproval: ApprovalHandler;
  /** Stops reading the input (after the run). Open questions are denied. */
  close(): void;
}

/** Where questions are written: a stream, or a writer that starts them on a line of their own. */
export interface PromptOutput {
  write(text: string): unknown;
  /** Told when a question appears on screen (`true`) and when none is there any more (`false`). */
  asking?(open: boolean): void;
}

interface Question {
  request: ApprovalRequest;
  settle: (decision: ApprovalDecision) => void;
}

/** The reason the script gets when the user answers no. */
export const USER_DENIAL = "the user denied this call";

/** Asks on `output`, reads answers from `input`. `knownSecrets` are masked in the arguments shown. */
export function createTerminalApprover(input: NodeJS.ReadableStream, output: PromptOutput, knownSecrets: readonly string[]): TerminalApprover {
  const lines = createInterface({ input, terminal: false });
  const queue: Question[] = [];
  let inputEnded = false;

  const ask = (question: Question) => {
    output.asking?.(true);
    output.write(`${questionText(question.request, knownSecrets)} [y]es / [n]o / [a]lways for this run: `);
  };
  /** The next question, or the word that none is on screen any more. */
  const askNext = () => {
    if (queue[0]) ask(queue[0]);
    else output.asking?.(false);
  };
  const settleFirst = (decision: ApprovalDecision) => {
    const question = queue.shift();
    if (question === undefined) return;
    question.settle(decision);
    askNext();
  };

  lines.on("line", (line) => {
    if (queue.length === 0) return;
    const answer = line.trim().toLowerCase();
    if (answer === "y" || answer === "yes") settleFirst("approve");
    else if (answer === "n" || answer === "no") settleFirst({ type: "deny", reason: USER_DENIAL });
    else if (answer === "a" || answer === "always") settleFirst("approve-for-run");
    else output.write("Please answer y (yes), n (no) or a (always for this run): ");
  });
  const endInput = () => {
    if (inputEnded) return;
    inputEnded = true;
    if (queue.length > 0) output.write("\n");
    for (const question of queue.splice(0)) question.settle({ type: "deny", reason: "no answer: the terminal's input ended" });
    output.asking?.(false);
  };
  lines.on("close", endInput);

  return {
    onApproval: (request) =>
      new Promise<ApprovalDecision>((resolve) => {
        if (inputEnded) return resolve({ type: "deny", reason: "no answer: the terminal's input ended" });
        const question: Question = { request, settle: resolve };
        request.signal.addEventListener(
          "abort",
          () => {
            const at = queue.indexOf(question);
            if (at === -1) return;
            queue.splice(at, 1);
            // The decision is the run's now; this answer is not awaited.
            resolve({ type: "deny", reason: "withdrawn" });
            if (at === 0) {
              output.write(`(withdrawn: ${String(request.signal.reason)})\n`);
              askNext();
            }
          },
          { once: true },
        );
        queue.push(question);
        if (queue.length === 1) ask(question);
      }),
    close: () => {
      lines.close();
      endInput();
    },
  };
}

/** The question for one call: the tool and its arguments, bounded and masked. */
function questionText(request: ApprovalRequest, knownSecrets: readonly string[]): string {
  const call = `${request.tool}(${describeValue(request.args, { maxLength: 200 })})`;
  return redactSecrets(`codecall: approve ${call}?`, { knownSecrets });
}
