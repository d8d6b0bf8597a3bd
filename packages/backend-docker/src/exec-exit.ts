/**
 * The exit code of a finished exec. Docker can still report an exec as running for a moment after
 * its output stream ended (a race other clients have reported), so this polls briefly.
 */
import type Docker from "dockerode";
import { delay } from "@codecall/core/backend-kit";

const SETTLE_MS = 2_000;
const POLL_MS = 20;

/** The exec's exit code, or `undefined` when Docker still calls it running after the grace. */
export async function settledExitCode(exec: Docker.Exec): Promise<number | undefined> {
  let info = await exec.inspect();
  for (let waited = 0; (info.Running || info.ExitCode === null) && waited < SETTLE_MS; waited += POLL_MS) {
    await delay(POLL_MS);
    info = await exec.inspect();
  }
  return info.Running || info.ExitCode === null ? undefined : info.ExitCode;
}
