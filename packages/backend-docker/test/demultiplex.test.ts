import { PassThrough } from "node:stream";
import Docker from "dockerode";
import { describe, expect, it } from "vitest";
import { demultiplex } from "../src/demultiplex.js";

/** One frame of Docker's non-TTY stream: type (1 stdout, 2 stderr), 3 zero bytes, length, payload. */
function frame(type: 1 | 2, payload: Buffer): Buffer {
  const header = Buffer.alloc(8);
  header.writeUInt8(type, 0);
  header.writeUInt32BE(payload.length, 4);
  return Buffer.concat([header, payload]);
}

async function readAll(stream: PassThrough): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString();
}

// docker-modem's demuxer, as the backend uses it; no engine is contacted.
const { modem } = new Docker({ socketPath: "/nonexistent.sock" });

describe("demultiplex", () => {
  it("splits interleaved frames, also when chunks cut through headers and payloads, and ends both outputs", async () => {
    const socket = new PassThrough();
    const { stdout, stderr } = demultiplex(socket, modem);
    const wire = Buffer.concat([
      frame(1, Buffer.from("out-1 ")),
      frame(2, Buffer.from("err-1 ")),
      frame(1, Buffer.from("out-2")),
      frame(2, Buffer.from("err-2")),
    ]);
    for (let offset = 0; offset < wire.length; offset += 5) socket.write(wire.subarray(offset, offset + 5));
    socket.end();
    expect(await Promise.all([readAll(stdout), readAll(stderr)])).toEqual(["out-1 out-2", "err-1 err-2"]);
  });

  it("pauses the connection while a reader lags, and resumes once it reads", async () => {
    const socket = new PassThrough();
    const { stdout, stderr } = demultiplex(socket, modem);
    const payload = Buffer.alloc(32 * 1024, "x");
    for (let index = 0; index < 64; index += 1) socket.write(frame(1, payload));
    socket.end();
    await new Promise((resolve) => setTimeout(resolve, 50));
    // 2 MiB were written, but with nobody reading stdout only a little crossed over.
    expect(socket.isPaused()).toBe(true);
    expect(stdout.readableLength).toBeLessThan(256 * 1024);
    expect((await readAll(stdout)).length).toBe(64 * payload.length);
    expect(await readAll(stderr)).toBe("");
  });

  it("keeps draining when a reader has cancelled its output", async () => {
    const socket = new PassThrough();
    const { stdout, stderr } = demultiplex(socket, modem);
    stdout.destroy();
    for (let index = 0; index < 64; index += 1) socket.write(frame(1, Buffer.alloc(32 * 1024)));
    socket.write(frame(2, Buffer.from("still here")));
    socket.end();
    expect(await readAll(stderr)).toBe("still here");
  });
});
