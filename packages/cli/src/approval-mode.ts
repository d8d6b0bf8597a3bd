/**
 * Who approves the tool calls of a `codecall run`: `--require-approval` marks tools whose every
 * call needs approval (tools may also declare `needsApproval` themselves); `--approve-all`
 * approves every call; otherwise the user is asked on the terminal — when stdin is one and the
 * script was not read from it. With no one to ask, there is no handler, and core denies such
 * calls (fail closed); the run's events say so and the CLI tells the user once per tool.
 */
import type { ApprovalHandler, ToolDefinition } from "@codecall/core";
import type { PromptOutput, TerminalApprover } from "./approval-prompt.js";
import { assertKnownToolNames } from "./known-tool-names.js";

/** How the run's approvals are answered. */
export interface ApprovalMode {
  /** Undefined: nobody can approve (calls that need approval are denied). */
  onApproval?: ApprovalHandler;
  /** Why nobody can approve, for the note on stderr. */
  deniedBecause?: string;
  /** Releases the terminal after the run. */
  close(): void;
}

/** The tools, with those named in `names` marked as needing approval for every call. Unknown names are a usage error. */
export function requireApproval(tools: readonly ToolDefinition[], names: readonly string[]): ToolDefinition[] {
  assertKnownToolNames("--require-approval", tools, names);
  const marked = new Set(names);
  return tools.map((tool) => (marked.has(tool.name) ? { ...tool, needsApproval: true } : tool));
}

export interface ApprovalModeOptions {
  approveAll: boolean;
  /** The script is read from stdin, which is then not there for answers. */
  scriptFromStdin: boolean;
  stdin: NodeJS.ReadableStream;
  /** Where questions go (stderr: stdout carries the script's output). */
  prompt: PromptOutput;
  /** Masked in the arguments a question shows. */
  knownSecrets: readonly string[];
}

export function approvalModeFor(options: ApprovalModeOptions): ApprovalMode {
  if (options.approveAll) return { onApproval: () => "approve", close: () => {} };
  if (options.scriptFromStdin) return { deniedBecause: "the script was read from stdin, so no answer can be read there", close: () => {} };
  if ((options.stdin as { isTTY?: boolean }).isTTY !== true) return { deniedBecause: "stdin is not a terminal", close: () => {} };
  // Made on the first question: a run that asks nothing never reads the terminal, nor loads the
  // prompt's code (and node:readline with it).
  let approver: Promise<TerminalApprover> | undefined;
  let closed = false;
  return {
    onApproval: async (request) => {
      approver ??= import("./approval-prompt.js").then(({ createTerminalApprover }) => {
        const made = createTerminalApprover(options.stdin, options.prompt, options.knownSecrets);
        // Closed while the prompt was loading: the question is denied as after the input ended.
        if (closed) made.close();
        return made;
      });
      const made = await approver;
      // Withdrawn while the prompt was loading: there is nothing to ask any more.
      if (request.signal.aborted) return { type: "deny", reason: "withdrawn" };
      return made.onApproval(request);
    },
    close: () => {
      closed = true;
      void approver?.then((made) => made.close());
    },
  };
}
