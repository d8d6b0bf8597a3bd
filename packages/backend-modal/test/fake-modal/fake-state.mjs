// Everything the fake server knows: its configuration, issued tokens, apps, built images, sandboxes,
// the log of calls (appended to calls.jsonl, which tests read), and faults a test asked for.
import { appendFileSync, mkdirSync } from "node:fs";
import path from "node:path";

export class FakeState {
  authTokens = new Set();
  /** "environment/app name" → app id, and back. */
  apps = new Map();
  appNames = new Map();
  images = new Set();
  /** @type {Map<string, import("./fake-sandbox.mjs").FakeSandbox>} */
  sandboxes = new Map();
  /** method → { code, details, times, after, sandboxId } */
  #faults = new Map();
  routerUrl = "";

  /** @param {{ tokenId: string, tokenSecret: string, images: string[], stateDir: string }} config */
  constructor(config) {
    this.config = config;
    mkdirSync(config.stateDir, { recursive: true });
    this.callLog = path.join(config.stateDir, "calls.jsonl");
  }

  /** The running sandbox named `name` in the app. */
  findByName(appId, name) {
    return [...this.sandboxes.values()].find((sandbox) => sandbox.running && sandbox.appId === appId && sandbox.name === name);
  }

  /** Appends a call to the log; byte fields are logged by size. */
  record(method, request) {
    appendFileSync(this.callLog, `${JSON.stringify({ method, request: summarize(request) })}\n`);
  }

  /**
   * After `after` more calls of `method` succeed, the next `times` fail with `code` (0 times
   * disarms). With `sandboxId`, only calls about that sandbox count: a test's fault is not used up
   * by another test's leftovers (the SDK retries calls to a sandbox that has ended).
   */
  addFault(method, code, details, times, after, sandboxId) {
    if (times > 0) this.#faults.set(method, { code, details, times, after, sandboxId });
    else this.#faults.delete(method);
  }

  /** The fault for this call of `method` with `request`, if one is armed (used up as it is taken). */
  takeFault(method, request) {
    const fault = this.#faults.get(method);
    if (!fault || !this.#concerns(request, fault.sandboxId)) return undefined;
    if (fault.after > 0) {
      fault.after -= 1;
      return undefined;
    }
    fault.times -= 1;
    if (fault.times <= 0) this.#faults.delete(method);
    return fault;
  }

  /** Whether `request` is about sandbox `sandboxId` (any request, without one). */
  #concerns(request, sandboxId) {
    if (sandboxId === undefined) return true;
    if (request.sandbox_id !== undefined) return request.sandbox_id === sandboxId;
    return request.task_id !== undefined && request.task_id === this.sandboxes.get(sandboxId)?.taskId;
  }
}

/** `value` with every Buffer replaced by `{ bytes: length }`. */
function summarize(value) {
  if (Buffer.isBuffer(value)) return { bytes: value.length };
  if (Array.isArray(value)) return value.map(summarize);
  if (value && typeof value === "object") return Object.fromEntries(Object.entries(value).map(([key, inner]) => [key, summarize(inner)]));
  return value;
}
