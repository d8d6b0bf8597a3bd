/**
 * One command as a Docker exec: the exec primitive core's ExecEnvironment builds on. The hijacked
 * connection carries stdin up (half-closed for EOF) and the multiplexed stdout/stderr down; the
 * exit code comes from inspecting the exec once the stream ends.
 *
 * Docker cannot kill an exec, so nothing here kills: core's command wrapper does that inside the
 * container. What this file must get right is the end: a stream that ends because the container
 * died (killed, removed, out of memory) rejects `exit` with the reason, instead of passing off
 * the container's death as the command's exit code 137.
 */
import { Readable, Writable, type Duplex } from "node:stream";
import type Docker from "dockerode";
import { CodecallError, errorMessage, setLongTimeout, type ExecChannel, type ProcessExit } from "@codecall/core";
import { demultiplex } from "./demultiplex.js";
import { settledExitCode } from "./exec-exit.js";

/** The container an exec runs in, as the session provides it. */
export interface ExecTarget {
  readonly container: Docker.Container;
  /** Settings every exec gets (env and working directory when working in an existing container). */
  readonly execDefaults: { Env?: string[]; WorkingDir?: string };
  /** Why the container can no longer run commands, or `undefined` while it can. */
  goneReason(): Promise<string | undefined>;
  /** How long the engine may take to create and start an exec (`engineTimeoutMs`). */
  readonly engineTimeoutMs: number;
}

/** Exit codes that can mean the process was killed; only these need a check of the container. */
const FIRST_SIGNAL_EXIT_CODE = 128;

export async function startDockerExec(target: ExecTarget, argv: string[]): Promise<ExecChannel> {
  let exec: Docker.Exec;
  let socket: Duplex;
  // A hung engine must not hang the caller, least of all the kill of a timed-out command (core
  // drops the command when its kill cannot start). Never aborted once started: the signal stays
  // attached to the hijacked connection.
  const deadline = new AbortController();
  const timer = setLongTimeout(() => deadline.abort(), target.engineTimeoutMs);
  try {
    exec = await target.container.exec({
      Cmd: argv,
      AttachStdin: true,
      AttachStdout: true,
      AttachStderr: true,
      Tty: false,
      ...target.execDefaults,
      abortSignal: deadline.signal,
    });
    socket = await exec.start({ hijack: true, stdin: true, abortSignal: deadline.signal });
  } catch (error) {
    if (deadline.signal.aborted) {
      throw new CodecallError(
        "ENVIRONMENT_FAILED",
        `The Docker engine did not start the command within ${target.engineTimeoutMs} ms: is dockerd overloaded or hung?`,
        { cause: error },
      );
    }
    throw await lostContainer(target, error);
  } finally {
    timer.clear();
  }
  // Errors (a reset when the container is removed) also end in 'close', which decides the exit.
  socket.on("error", () => {});
  const { stdout, stderr } = demultiplex(socket, target.container.modem);

  let detached = false;
  const exit = new Promise<ProcessExit>((resolve, reject) => {
    let ended = false;
    const onEnd = () => {
      if (ended) return;
      ended = true;
      if (detached) {
        reject(new CodecallError("ENVIRONMENT_FAILED", "the connection to the command was closed before it ended"));
        return;
      }
      // The command is over; our half may still be open when its stdin was never closed.
      socket.end();
      exitOf(exec, target).then(resolve, reject);
    };
    socket.once("end", onEnd);
    socket.once("close", onEnd);
  });

  return {
    stdin: Writable.toWeb(socket) as WritableStream<Uint8Array>,
    stdout: Readable.toWeb(stdout) as unknown as ReadableStream<Uint8Array>,
    stderr: Readable.toWeb(stderr) as unknown as ReadableStream<Uint8Array>,
    exit,
    close: () => {
      detached = true;
      socket.destroy();
    },
  };
}

async function exitOf(exec: Docker.Exec, target: ExecTarget): Promise<ProcessExit> {
  let exitCode: number | undefined;
  try {
    exitCode = await settledExitCode(exec);
  } catch (error) {
    // The exec's record goes with its container.
    throw await lostContainer(target, error);
  }
  if (exitCode === undefined) {
    throw await lostContainer(target, new Error("its output stream ended while Docker still reports it running"));
  }
  // A container that dies takes its execs with it (SIGKILL, exit code 137), which looks like a
  // killed command; only the container's state tells the two apart.
  if (exitCode >= FIRST_SIGNAL_EXIT_CODE) {
    const gone = await target.goneReason();
    if (gone) throw new CodecallError("ENVIRONMENT_FAILED", gone);
  }
  return { exitCode };
}

/** The error for a failed exec: the container's fate when it is gone, else the engine's message. */
async function lostContainer(target: ExecTarget, error: unknown): Promise<CodecallError> {
  if (CodecallError.isInstance(error)) return error;
  const gone = await target.goneReason().catch(() => undefined);
  const message = gone ?? `Docker could not run the command: ${errorMessage(error)}`;
  return new CodecallError("ENVIRONMENT_FAILED", message, { cause: error });
}
