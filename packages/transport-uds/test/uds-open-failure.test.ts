/**
 * An open that fails after the socket is already listening (here: chmod fails) closes the server
 * again. A server left listening would keep the host process alive for ever.
 */
import { connect } from "node:net";
import { rm } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it, vi } from "vitest";
import { RpcDispatcher } from "@codecall/core";
import { createEnvironment } from "@codecall/backend-local";
import { createTransport } from "../src/index.js";

vi.mock("node:fs/promises", async (importOriginal) => {
  const original = await importOriginal<typeof import("node:fs/promises")>();
  return { ...original, chmod: () => Promise.reject(new Error("chmod failed on purpose")) };
});

function connects(socketPath: string): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(socketPath);
    socket.once("connect", () => {
      socket.destroy();
      resolve(true);
    });
    socket.once("error", () => resolve(false));
  });
}

describe("uds transport: an open that fails half-way", () => {
  it("leaves no server listening", async () => {
    const environment = createEnvironment();
    const runDir = await environment.tempDir();
    try {
      const dispatcher = new RpcDispatcher({ tools: [], token: "t".repeat(64), environment, runId: "test" });
      const opening = createTransport().open(environment, {
        runId: "test",
        runDir,
        token: "t".repeat(64),
        dispatcher,
        maxFrameBytes: 1 << 20,
        interpreter: "python3",
      });
      await expect(opening).rejects.toThrow("chmod failed on purpose");
      expect(await connects(path.join(runDir, "rpc.sock"))).toBe(false);
    } finally {
      await environment.close();
      await rm(runDir, { recursive: true, force: true });
    }
  });
});
