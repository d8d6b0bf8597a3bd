import { describe, expect, it } from "vitest";
import { CodecallError, type Environment, type EnvironmentCapabilities } from "@codecall/core";
import { PYTHON_SOCKET_CLIENT } from "@codecall/core/protocol";
import { createTransport } from "../src/index.js";

const withCapabilities = (capabilities: EnvironmentCapabilities) => ({ capabilities }) as unknown as Environment;

describe("stream transport", () => {
  it("supports environments whose stdio stays open and that can run the relay, the script and a tool at once", () => {
    const transport = createTransport();
    expect(transport.supports(withCapabilities({ hostSockets: false, streamingStdio: true }))).toBe(true);
    expect(transport.supports(withCapabilities({ hostSockets: false, streamingStdio: true, maxConcurrentExec: 3 }))).toBe(true);
    // The relay would hold one of two slots for the whole run: tool commands could starve.
    expect(transport.supports(withCapabilities({ hostSockets: false, streamingStdio: true, maxConcurrentExec: 2 }))).toBe(false);
    expect(transport.supports(withCapabilities({ hostSockets: true, streamingStdio: false }))).toBe(false);
  });

  it("gives guests the socket client, and only for Python", () => {
    expect(createTransport().guestClient("python")).toBe(PYTHON_SOCKET_CLIENT);
    expect(() => createTransport().guestClient("ruby" as "python")).toThrow("The stream transport has no ruby client");
  });

  it("refuses nonsense timeouts, naming the option", () => {
    for (const options of [{ startTimeoutMs: 0 }, { closeGraceMs: -1 }, { startTimeoutMs: Number.NaN }]) {
      expect(() => createTransport(options)).toThrow(CodecallError);
    }
    expect(() => createTransport({ startTimeoutMs: 0 })).toThrow("startTimeoutMs must be a positive number of ms, got 0");
  });
});
