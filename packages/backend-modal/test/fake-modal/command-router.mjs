// The fake's command router (modal.task_command_router.TaskCommandRouter): starts commands in a
// sandbox, streams their output by offset, takes their stdin, reports their exit. It checks the
// router JWT of the sandbox. Once a sandbox has ended its router is gone: every call for it fails
// UNAVAILABLE, and calls in flight are cut with UNAVAILABLE too — the SDK retries those (a wait
// forever), so a client has to notice the sandbox's end by itself.
import { status } from "@grpc/grpc-js";

/** The largest data message of a TaskExecStdioRead stream. */
const READ_MESSAGE_BYTES = 1024 * 1024;

const fail = (code, details) => Object.assign(new Error(details), { code, details });
const routerGone = (sandbox) => fail(status.UNAVAILABLE, `the command router of task ${sandbox.taskId} is not reachable (the sandbox has ended)`);

/**
 * @param {import("./fake-state.mjs").FakeState} state
 * @returns the TaskCommandRouter service's handlers
 */
export function commandRouter(state) {
  /** The sandbox the request's bearer token is for; it must be the request's task and running. */
  const sandboxOf = (request, call) => {
    const header = call.metadata.get("authorization")[0];
    const token = typeof header === "string" ? header.replace(/^Bearer /, "") : "";
    const sandbox = [...state.sandboxes.values()].find((candidate) => candidate.routerJwt === token);
    if (!sandbox || sandbox.taskId !== request.task_id) throw fail(status.UNAUTHENTICATED, "invalid command router token for this task");
    if (!sandbox.running) throw routerGone(sandbox);
    return sandbox;
  };
  const execOf = (request, call) => {
    const sandbox = sandboxOf(request, call);
    const exec = sandbox.execs.get(request.exec_id);
    if (!exec) throw fail(status.NOT_FOUND, `exec ${request.exec_id} not found`);
    return { sandbox, exec };
  };
  /** Aborts when the sandbox ends while a call waits. */
  const untilEnded = (sandbox, signal) => {
    const ended = new AbortController();
    const stop = () => ended.abort();
    signal.addEventListener("abort", stop, { once: true });
    sandbox.waitFor(Infinity, ended.signal).then(stop);
    return ended.signal;
  };

  return {
    TaskExecStart(request, call) {
      const sandbox = sandboxOf(request, call);
      if (sandbox.execs.has(request.exec_id)) throw fail(status.ALREADY_EXISTS, `exec ${request.exec_id} already exists`);
      sandbox.exec(request);
      return { task_id: request.task_id, exec_id: request.exec_id };
    },

    async TaskExecStdioRead(request, call) {
      const { sandbox, exec } = execOf(request, call);
      const output = request.file_descriptor === 1 ? exec.stderr : exec.stdout;
      const stop = untilEnded(sandbox, call.signal);
      let offset = Number(request.offset);
      for (;;) {
        if (call.signal.aborted) return;
        if (!sandbox.running) throw routerGone(sandbox);
        const data = output.read(offset, READ_MESSAGE_BYTES);
        if (data === undefined) throw fail(status.OUT_OF_RANGE, `offset ${offset} is no longer available`);
        if (data.length > 0) {
          await call.write({ data });
          offset += data.length;
          output.sentUpTo(offset);
          continue;
        }
        if (output.ended) return;
        await output.changed(stop);
      }
    },

    async TaskExecStdinWrite(request, call) {
      const { exec } = execOf(request, call);
      try {
        await exec.writeStdin(Number(request.offset), request.data, request.eof);
      } catch (error) {
        throw fail(status.INVALID_ARGUMENT, error.message);
      }
      return {};
    },

    async TaskExecWait(request, call) {
      const { sandbox, exec } = execOf(request, call);
      await Promise.race([exec.exited, new Promise((resolve) => untilEnded(sandbox, call.signal).addEventListener("abort", resolve))]);
      if (!sandbox.running) throw routerGone(sandbox);
      return exec.exitStatus ?? {};
    },

    TaskExecPoll(request, call) {
      const { exec } = execOf(request, call);
      return exec.exitStatus ?? {};
    },
  };
}
