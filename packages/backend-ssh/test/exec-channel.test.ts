import { PassThrough } from "node:stream";
import { describe, expect, it } from "vitest";
import type { ClientChannel } from "ssh2";
import { toExecChannel } from "../src/exec-channel.js";

/** Enough of an ssh2 exec channel: a duplex for stdout/stdin plus a stderr stream; `close` only when emitted (as in ssh2). */
function fakeChannel(): ClientChannel & { written: Buffer[] } {
  const written: Buffer[] = [];
  const channel = new PassThrough({ emitClose: false }) as unknown as ClientChannel & { written: Buffer[] };
  channel.written = written;
  (channel as unknown as { stderr: PassThrough }).stderr = new PassThrough({ emitClose: false });
  channel.write = ((chunk: Buffer, callback: (error?: Error | null) => void) => {
    written.push(Buffer.from(chunk));
    callback();
    return true;
  }) as ClientChannel["write"];
  return channel;
}

async function readAll(stream: ReadableStream<Uint8Array>): Promise<string> {
  let text = "";
  for await (const chunk of stream as unknown as AsyncIterable<Uint8Array>) text += Buffer.from(chunk).toString();
  return text;
}

describe("toExecChannel", () => {
  it("takes the exit status from close, even when the exit event fired before it was wrapped", async () => {
    const channel = fakeChannel();
    channel.emit("exit", 3);
    const exec = toExecChannel(channel, () => undefined);
    channel.emit("close", 3);
    await expect(exec.exit).resolves.toEqual({ exitCode: 3 });
  });

  it("reports a signal as 128 + its number", async () => {
    const channel = fakeChannel();
    const exec = toExecChannel(channel, () => undefined);
    channel.emit("close", null, "SIGKILL");
    await expect(exec.exit).resolves.toEqual({ exitCode: 137, signal: "SIGKILL" });
  });

  it("rejects with the connection's reason when the channel closes without a status", async () => {
    const channel = fakeChannel();
    const exec = toExecChannel(channel, () => new Error("connection lost"));
    channel.emit("close");
    await expect(exec.exit).rejects.toThrow("connection lost");
  });

  it("streams stdout and stderr and fails stdin writes still pending when the channel closes", async () => {
    const channel = fakeChannel();
    const exec = toExecChannel(channel, () => undefined);
    const stdout = readAll(exec.stdout);
    const stderr = readAll(exec.stderr);
    channel.end("out");
    (channel.stderr as unknown as PassThrough).end("err");
    expect([await stdout, await stderr]).toEqual(["out", "err"]);
    const writer = exec.stdin.getWriter();
    await writer.write(new TextEncoder().encode("in"));
    expect(Buffer.concat(channel.written).toString()).toBe("in");
    channel.write = (() => true) as ClientChannel["write"];
    const pending = writer.write(new TextEncoder().encode("never acknowledged"));
    channel.emit("close", 0);
    await expect(pending).rejects.toThrow(/ended before reading all of its stdin/);
  });
});
