// One fake sandbox: a home directory on this machine, an environment, the commands exec'd into
// it, and its life — a lifetime timer (definition.timeout_secs), terminate, and the result
// SandboxWaitV2 reports. When it ends, every process it started is killed, and its command router
// stops answering for it (see command-router.mjs), as a vanished sandbox's would.
import { mkdirSync } from "node:fs";
import path from "node:path";
import { randomBytes } from "node:crypto";
import { FakeExec } from "./fake-exec.mjs";
import { sandboxProcesses } from "./process-table.mjs";
import { issueToken } from "./tokens.mjs";

/** GenericResult statuses. */
export const STATUS = { SUCCESS: 1, FAILURE: 2, TERMINATED: 3, TIMEOUT: 4 };

/** The environment variable that tags every process of a sandbox (found by it when it ends). */
const TAG_VARIABLE = "FAKE_MODAL_SANDBOX";

export class FakeSandbox {
  /** @type {Map<string, FakeExec>} */
  execs = new Map();
  /** @type {{ status: number, exception: string, exitcode: number } | undefined} */
  result;
  #ended;
  #end;
  #lifetime;

  /**
   * @param {{ appId: string, definition: any, tags: Record<string, string>, env: Record<string, string>, stateDir: string }} spec
   */
  constructor(spec) {
    this.id = `sb2-${randomBytes(8).toString("hex")}`;
    this.taskId = `ta-${randomBytes(8).toString("hex")}`;
    this.appId = spec.appId;
    this.name = spec.definition.name || undefined;
    this.definition = spec.definition;
    this.tags = spec.tags;
    this.routerJwt = issueToken({ sandbox_id: this.id, task_id: this.taskId });
    this.home = path.join(spec.stateDir, this.id, "root");
    mkdirSync(this.home, { recursive: true });
    this.env = {
      PATH: process.env.PATH ?? "/usr/local/bin:/usr/bin:/bin",
      HOME: this.home,
      LANG: "C.UTF-8",
      MODAL_TASK_ID: this.taskId,
      [TAG_VARIABLE]: this.id,
      ...spec.env,
    };
    this.#ended = new Promise((resolve) => (this.#end = resolve));
    const lifetime = spec.definition.timeout_secs || 300;
    this.#lifetime = setTimeout(() => this.finish(STATUS.TIMEOUT, `Sandbox timed out after ${lifetime}s`), lifetime * 1000);
  }

  get running() {
    return this.result === undefined;
  }

  /** Starts a command; `spec` is a TaskExecStartRequest. */
  exec(spec) {
    const env = { ...this.env };
    for (const source of spec.secret_sources ?? []) Object.assign(env, source.env?.contents ?? {});
    const exec = new FakeExec({
      argv: spec.command_args,
      cwd: spec.workdir || this.definition.workdir || this.home,
      env,
      pipeStdout: spec.stdout_config === 1,
      pipeStderr: spec.stderr_config === 1,
      timeoutSecs: spec.timeout_secs,
    });
    this.execs.set(spec.exec_id, exec);
    return exec;
  }

  /** Resolves with the result once the sandbox has ended, or undefined after `timeoutMs` (may be Infinity) or on `signal`. */
  async waitFor(timeoutMs, signal) {
    if (!this.running || timeoutMs <= 0) return this.result;
    let timer;
    const stopped = new Promise((resolve) => {
      if (Number.isFinite(timeoutMs)) timer = setTimeout(resolve, timeoutMs);
      signal?.addEventListener("abort", resolve, { once: true });
    });
    await Promise.race([this.#ended, stopped]);
    clearTimeout(timer);
    return this.result;
  }

  /** Ends the sandbox (once): records why, kills everything it runs. */
  finish(status, exception = "") {
    if (!this.running) return;
    clearTimeout(this.#lifetime);
    this.result = { status, exception, exitcode: status === STATUS.SUCCESS ? 0 : 137 };
    // The process tree is read before anything dies: orphans are reparented once their parent goes.
    const roots = [...this.execs.values()].map((exec) => exec.pid).filter((pid) => pid !== undefined);
    const everything = sandboxProcesses(roots, `${TAG_VARIABLE}=${this.id}`);
    for (const exec of this.execs.values()) exec.kill("SIGKILL");
    for (const pid of everything) {
      try {
        process.kill(pid, "SIGKILL");
      } catch {
        // Already gone.
      }
    }
    this.#end();
  }
}
