/** The transport namespace: which candidates support the environment, fallbacks and why, the one used. */
import { afterEach, describe, expect, it } from "vitest";
import type { Environment } from "../src/environment.js";
import { openTransport, supportingTransports } from "../src/execute/open-transport.js";
import type { RunContext, Transport, TransportSession } from "../src/transport.js";
import { captureDebug, type DebugCapture } from "./support/debug.js";

const environment = {
  specificationVersion: "v1",
  backendId: "fake",
  capabilities: { hostSockets: false, streamingStdio: true },
} as unknown as Environment;
const run = {} as RunContext;
const session: TransportSession = { guestEnv: {}, close: async () => {} };

function transport(id: string, behaviour: { supports?: boolean; requires?: string; fails?: string }): Transport {
  return {
    specificationVersion: "v1",
    id,
    ...(behaviour.requires ? { requires: behaviour.requires } : {}),
    supports: () => behaviour.supports ?? true,
    guestClient: () => "",
    open: async () => {
      if (behaviour.fails) throw new Error(behaviour.fails);
      return session;
    },
  };
}

describe("transport debug lines", () => {
  let debug: DebugCapture;
  afterEach(() => debug.stop());

  it("list the candidates, then the fallback with its reason and the transport used", async () => {
    debug = captureDebug("transport");
    const candidates = [
      transport("uds", { supports: false, requires: "host sockets" }),
      transport("custom", { supports: false }),
      transport("stream", { fails: "the relay did not start" }),
      transport("file", {}),
    ];
    const opened = await openTransport(supportingTransports(candidates, environment), environment, run);
    expect(opened.transport.id).toBe("file");
    expect(debug.lines).toEqual([
      "codecall:transport candidates for the fake backend: uds (unsupported: needs host sockets), custom (unsupported), stream (supported), file (supported)",
      "codecall:transport stream failed to open: the relay did not start; falling back to file",
      expect.stringMatching(/^codecall:transport using file \(opened in \d+ ms\)$/),
    ]);
  });

  it("say when no candidate is left", async () => {
    debug = captureDebug("transport");
    await expect(openTransport([transport("file", { fails: "mktemp failed" })], environment, run)).rejects.toThrow("file: mktemp failed");
    expect(debug.lines).toEqual(["codecall:transport file failed to open: mktemp failed; no candidate left"]);
  });

  it("are not written while the namespace is off", async () => {
    debug = captureDebug("rpc,backend");
    await openTransport(supportingTransports([transport("file", {})], environment), environment, run);
    expect(debug.lines).toEqual([]);
  });
});
