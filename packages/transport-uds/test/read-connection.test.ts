/**
 * How the host reads a guest's connection: a Unix socket's into one reused buffer (its server
 * still closes), any other socket as Node made it; both stop reading when told and go on when
 * resumed, and lose no byte.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { connect, createServer, type Server, type Socket } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { readConnection } from "../src/read-connection.js";

interface Served {
  server: Server;
  client: Socket;
  socket: Socket;
  accepted: Socket;
  reads: Uint8Array[];
  received: () => string;
  /** What each read returns (false: stop reading). */
  keepReading: { value: boolean };
}

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

async function serve(address: string | { port: number; host: string }): Promise<Served> {
  const reads: Uint8Array[] = [];
  const chunks: Buffer[] = [];
  const keepReading = { value: true };
  let resolveServed: (value: { socket: Socket; accepted: Socket }) => void;
  const served = new Promise<{ socket: Socket; accepted: Socket }>((resolve) => (resolveServed = resolve));
  const server = createServer((accepted) => {
    const socket = readConnection(accepted, (bytes) => {
      reads.push(bytes);
      chunks.push(Buffer.from(bytes));
      return keepReading.value;
    });
    resolveServed({ socket, accepted });
  });
  await new Promise<void>((resolve) =>
    typeof address === "string" ? server.listen(address, resolve) : server.listen(address.port, address.host, resolve),
  );
  const where = server.address();
  const client = typeof where === "string" ? connect(where) : connect(where!.port, "127.0.0.1");
  const { socket, accepted } = await served;
  cleanups.push(async () => {
    client.destroy();
    socket.destroy();
    await new Promise((resolve) => server.close(resolve));
  });
  return { server, client, socket, accepted, reads, received: () => Buffer.concat(chunks).toString(), keepReading };
}

async function until(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((resolve) => setTimeout(resolve, 5));
}

describe("readConnection", () => {
  it("reads a Unix socket's connection into one reused buffer, and its server still closes", async () => {
    const dir = await mkdtemp(path.join(tmpdir(), "codecall-read-connection-"));
    cleanups.push(() => rm(dir, { recursive: true, force: true }));
    const served = await serve(path.join(dir, "test.sock"));
    expect(served.socket).not.toBe(served.accepted);
    served.client.write("first\n");
    await until(() => served.received() === "first\n");
    served.client.write("second\n");
    await until(() => served.received() === "first\nsecond\n");
    // Both reads are views of the same buffer: nothing was allocated for the second.
    expect(served.reads[1]!.buffer).toBe(served.reads[0]!.buffer);
    // The accepted socket was counted out of the server: closing it waits only for the served socket.
    served.client.destroy();
    await until(() => served.socket.destroyed);
    await new Promise((resolve) => served.server.close(resolve));
  });

  it("falls back to Node's own reading for a socket without a pipe handle (TCP)", async () => {
    const served = await serve({ port: 0, host: "127.0.0.1" });
    expect(served.socket).toBe(served.accepted);
    served.client.write("over tcp\n");
    await until(() => served.received() === "over tcp\n");
  });

  for (const kind of ["unix", "tcp"] as const) {
    it(`stops reading when told and goes on after resume, losing nothing (${kind})`, async () => {
      let address: string | { port: number; host: string } = { port: 0, host: "127.0.0.1" };
      if (kind === "unix") {
        const dir = await mkdtemp(path.join(tmpdir(), "codecall-read-connection-"));
        cleanups.push(() => rm(dir, { recursive: true, force: true }));
        address = path.join(dir, "test.sock");
      }
      const served = await serve(address);
      served.keepReading.value = false;
      served.client.write("a");
      await until(() => served.received() === "a");
      served.client.write("b");
      await new Promise((resolve) => setTimeout(resolve, 100));
      // Paused: the second byte waits in the socket.
      expect(served.received()).toBe("a");
      served.keepReading.value = true;
      served.socket.resume();
      await until(() => served.received() === "ab");
    });
  }
});
