// An exec API that refuses the command's header (the first bytes on its stdin): the remote
// wrapper would wait for it forever, so the call fails at once and the channel is released.
import { describe, expect, it } from "vitest";
import { CodecallError } from "../src/errors.js";
import { ExecEnvironment } from "../src/remote/exec-environment.js";
import type { ExecChannel, StartExec } from "../src/remote/remote-executor.js";

describe("RemoteExecutor when stdin writes are refused", () => {
  it("fails the command, naming the refusal, and closes its channel", async () => {
    let closed = 0;
    const start: StartExec = async () => {
      const channel: ExecChannel = {
        stdin: new WritableStream<Uint8Array>({ write: () => Promise.reject(new Error("RESOURCE_EXHAUSTED: message too large")) }),
        stdout: new ReadableStream<Uint8Array>(),
        stderr: new ReadableStream<Uint8Array>(),
        // Never ends by itself: the wrapper would wait for its header.
        exit: new Promise(() => {}),
        close: () => (closed += 1),
      };
      return channel;
    };
    const environment = new ExecEnvironment({ backendId: "fake", capabilities: { hostSockets: false, streamingStdio: true }, start });
    const error = await environment.execute("echo hi").catch((caught: unknown) => caught);
    expect(CodecallError.isInstance(error, "ENVIRONMENT_FAILED")).toBe(true);
    expect((error as Error).message).toBe("fake: could not send the command to the environment: RESOURCE_EXHAUSTED: message too large");
    expect(closed).toBe(1);
  });
});
