import { afterEach, describe, expect, it, vi } from "vitest";
import { debugLogger, setDebugNamespaces, setDebugSink } from "../src/debug/debug-log.js";
import { parseDebugNamespaces } from "../src/debug/debug-namespaces.js";

describe("parseDebugNamespaces", () => {
  it("reads names separated by commas and/or spaces, in any case", () => {
    expect([...parseDebugNamespaces("rpc,transport").enabled]).toEqual(["rpc", "transport"]);
    expect([...parseDebugNamespaces("  Backend ,, ENV rpc ").enabled]).toEqual(["backend", "env", "rpc"]);
  });

  it("takes * and all for every namespace, and the codecall: prefix of the lines", () => {
    const all = ["transport", "env", "rpc", "backend"];
    expect([...parseDebugNamespaces("*").enabled]).toEqual(all);
    expect([...parseDebugNamespaces("ALL").enabled]).toEqual(all);
    expect([...parseDebugNamespaces("codecall:*").enabled]).toEqual(all);
    expect([...parseDebugNamespaces("codecall:rpc").enabled]).toEqual(["rpc"]);
  });

  it("enables nothing when unset or empty, and reports words that name no namespace", () => {
    expect(parseDebugNamespaces(undefined)).toEqual({ enabled: new Set(), unknown: [] });
    expect(parseDebugNamespaces(" , ")).toEqual({ enabled: new Set(), unknown: [] });
    expect(parseDebugNamespaces("rpc,tranport,1")).toEqual({ enabled: new Set(["rpc"]), unknown: ["tranport", "1"] });
  });
});

describe("debugLogger", () => {
  const lines: string[] = [];
  const capture = () => setDebugSink((line) => lines.push(line));

  afterEach(() => {
    lines.length = 0;
    vi.unstubAllEnvs();
    vi.restoreAllMocks();
    setDebugSink();
    setDebugNamespaces(undefined);
  });

  it("is off by default: nothing is written and no message is built", () => {
    vi.stubEnv("CODECALL_DEBUG", undefined);
    setDebugNamespaces(undefined);
    capture();
    const log = debugLogger("rpc");
    const message = vi.fn(() => "never");
    log(message);
    expect(message).not.toHaveBeenCalled();
    expect(log.enabled).toBe(false);
    expect(lines).toEqual([]);
  });

  it("writes the namespaces CODECALL_DEBUG selects, prefixed with codecall:<namespace> and the elapsed ms", () => {
    vi.stubEnv("CODECALL_DEBUG", "rpc");
    setDebugNamespaces(undefined);
    capture();
    debugLogger("rpc")(() => "call 1 started");
    debugLogger("transport")(() => "not selected");
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^codecall:rpc \+\d+ms call 1 started$/);
    expect(debugLogger("rpc").enabled).toBe(true);
    expect(debugLogger("transport").enabled).toBe(false);
  });

  it("lets code select namespaces over the variable, and go back to it", () => {
    vi.stubEnv("CODECALL_DEBUG", "backend");
    capture();
    setDebugNamespaces("transport");
    expect(debugLogger("transport").enabled).toBe(true);
    expect(debugLogger("backend").enabled).toBe(false);
    setDebugNamespaces(undefined);
    expect(debugLogger("transport").enabled).toBe(false);
    expect(debugLogger("backend").enabled).toBe(true);
  });

  it("names unknown words once, when the selection is read", () => {
    vi.stubEnv("CODECALL_DEBUG", "rpc, tranport");
    setDebugNamespaces(undefined);
    capture();
    const log = debugLogger("rpc");
    log(() => "one");
    log(() => "two");
    expect(lines.filter((line) => line.startsWith("codecall:debug"))).toEqual([
      'codecall:debug CODECALL_DEBUG names no namespace "tranport": ignored (namespaces: transport, env, rpc, backend, or * for all)',
    ]);
    expect(lines).toHaveLength(3);
  });

  it("masks the host's secret values and well-known token formats in every line", () => {
    vi.stubEnv("DEBUG_TEST_DB_PASSWORD", "hunter2-but-longer");
    capture();
    setDebugNamespaces("backend");
    debugLogger("backend")(() => "psql --password hunter2-but-longer -H 'Authorization: Bearer abcdefghijklmnop' ghp_abcdefghijklmnopqrstuvwxyz");
    expect(lines[0]).not.toContain("hunter2-but-longer");
    expect(lines[0]).not.toContain("abcdefghijklmnop");
    expect(lines[0]).not.toContain("ghp_abcdefghijklmnopqrstuvwxyz");
    expect(lines[0]).toContain("psql --password hunter...nger");
  });

  it("never lets a failing message or sink reach the caller", () => {
    setDebugNamespaces("env");
    setDebugSink(() => {
      throw new Error("sink down");
    });
    expect(() => debugLogger("env")(() => "x")).not.toThrow();
    capture();
    debugLogger("env")(() => {
      throw new Error("no such property");
    });
    expect(lines).toEqual([expect.stringMatching(/^codecall:env \+\d+ms \(this line could not be built: no such property\)$/)]);
  });

  it("writes to console.error unless a sink is set, and again after setDebugSink()", () => {
    const consoleError = vi.spyOn(console, "error").mockImplementation(() => {});
    setDebugNamespaces("rpc");
    capture();
    debugLogger("rpc")(() => "to the sink");
    setDebugSink();
    debugLogger("rpc")(() => "to the console");
    expect(lines).toHaveLength(1);
    expect(consoleError).toHaveBeenCalledTimes(1);
    expect(consoleError.mock.calls[0]?.[0]).toMatch(/^codecall:rpc \+\d+ms to the console$/);
  });
});
