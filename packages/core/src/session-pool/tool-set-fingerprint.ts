/**
 * What a session was made for, as one comparable string: the stub module its scripts import
 * (every tool's name, parameters and description), which tools need approval, and what else its
 * kernel was started with.
 * Two tools with equal fingerprints can share a conversation's session; any difference means a
 * new session, so no script ever imports stubs of another tool set.
 */
import type { ExecutionLimits } from "../execute/limits.js";
import { generatePythonModule } from "../guest/python-stub.js";
import type { ToolDefinition } from "../tool.js";

export interface SessionSetup {
  tools: readonly ToolDefinition[];
  moduleName: string;
  limits: ExecutionLimits;
  /** The environment (or the function that provides one): the same object, not an equal one. */
  environment: object;
  cwd?: string | undefined;
  interpreter?: string | undefined;
}

const identities = new WeakMap<object, number>();
let nextIdentity = 1;

/** The fingerprint of a session made with `setup`. */
export function sessionFingerprint(setup: SessionSetup): string {
  let environment = identities.get(setup.environment);
  if (environment === undefined) identities.set(setup.environment, (environment = nextIdentity++));
  // Whether calls need approval is not in the stubs, but a session keeps each tool's kind of rule.
  const approvals = setup.tools.map((tool) => (typeof tool.needsApproval === "function" ? "function" : tool.needsApproval === true));
  const facts = {
    environment,
    limits: setup.limits,
    cwd: setup.cwd ?? null,
    interpreter: setup.interpreter ?? null,
    module: setup.moduleName,
    approvals,
  };
  return `${JSON.stringify(facts)}\n${generatePythonModule({ tools: setup.tools, moduleName: setup.moduleName })}`;
}
