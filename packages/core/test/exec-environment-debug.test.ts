/** The backend namespace as ExecEnvironment writes it for every exec-API backend (docker, ssh, singularity). */
import { afterEach, describe, expect, it } from "vitest";
import { ExecEnvironment } from "../src/remote/exec-environment.js";
import type { ExecChannel, StartExec } from "../src/remote/remote-executor.js";
import { captureDebug, type DebugCapture } from "./support/debug.js";

/** Every exec ends at once with exit code 0 and no output. */
const start: StartExec = async () => {
  const empty = () => new ReadableStream<Uint8Array>({ start: (controller) => controller.close() });
  const channel: ExecChannel = {
    stdin: new WritableStream<Uint8Array>(),
    stdout: empty(),
    stderr: empty(),
    exit: Promise.resolve({ exitCode: 0 }),
    close: () => {},
  };
  return channel;
};

describe("backend debug lines of ExecEnvironment", () => {
  let debug: DebugCapture;
  afterEach(() => debug.stop());

  it("show each command with its cwd and variable names (never values), then its exit; and helper commands", async () => {
    debug = captureDebug("backend");
    const environment = new ExecEnvironment({
      backendId: "fake",
      capabilities: { hostSockets: false, streamingStdio: true },
      start,
      workdir: "/work",
    });
    await environment.execute("python3 script.py", { env: { CODECALL_RPC_TOKEN: "run-token-value-1234" } });
    await environment.remove("/tmp/run");
    expect(debug.lines).toEqual([
      "codecall:backend fake command 1: python3 script.py [cwd /work; env + CODECALL_RPC_TOKEN]",
      expect.stringMatching(/^codecall:backend fake command 1: exited 0 after \d+ ms$/),
      "codecall:backend fake helper: rm -rf -- /tmp/run",
    ]);
    expect(debug.lines.join("\n")).not.toContain("run-token-value-1234");
  });
});
