/**
 * A short command with no stdin whose combined output is wanted: the checks the session runs on a
 * container (are the wrapper's tools there, can it still run commands). Deliberately simpler than
 * `startDockerExec`, which itself relies on these checks to explain failures.
 */
import { PassThrough } from "node:stream";
import { finished } from "node:stream/promises";
import type Docker from "dockerode";
import type { Demuxer } from "./demultiplex.js";
import { settledExitCode } from "./exec-exit.js";

export interface ProbeResult {
  exitCode: number;
  /** stdout and stderr together. */
  output: string;
}

/** Gives up (rejects) when the engine has not finished the probe within `timeoutMs`. */
export async function probeExec(container: Docker.Container, argv: string[], timeoutMs: number): Promise<ProbeResult> {
  const abortSignal = AbortSignal.timeout(timeoutMs);
  const exec = await container.exec({ Cmd: argv, AttachStdout: true, AttachStderr: true, Tty: false, abortSignal });
  const stream = await exec.start({ abortSignal });
  const output = new PassThrough();
  const chunks: Buffer[] = [];
  output.on("data", (chunk: Buffer) => chunks.push(chunk));
  (container.modem as Demuxer).demuxStream(stream, output, output);
  await finished(stream);
  return { exitCode: (await settledExitCode(exec)) ?? -1, output: Buffer.concat(chunks).toString("utf8") };
}
