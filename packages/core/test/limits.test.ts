import { describe, expect, it } from "vitest";
import { CodecallError } from "../src/errors.js";
import { DEFAULT_LIMITS, resolveLimits, type ExecutionLimits } from "../src/execute/limits.js";

function invalid(overrides: Record<string, unknown>): CodecallError {
  try {
    resolveLimits(overrides as Partial<ExecutionLimits>);
  } catch (error) {
    if (CodecallError.isInstance(error, "INVALID_OPTIONS")) return error;
    throw error;
  }
  throw new Error(`resolveLimits accepted ${JSON.stringify(overrides)}`);
}

describe("resolveLimits", () => {
  it("has the documented defaults", () => {
    expect(resolveLimits()).toEqual({
      timeoutMs: 300_000,
      killGraceMs: 5_000,
      maxStdoutBytes: 50_000,
      maxStderrBytes: 10_000,
      maxToolCalls: 50,
      maxFrameBytes: 16 * 1024 * 1024,
      maxJsonDepth: 128,
    });
    expect(Object.isFrozen(DEFAULT_LIMITS)).toBe(true);
  });

  it("applies overrides and ignores undefined ones", () => {
    const limits = resolveLimits({ timeoutMs: 1000, maxToolCalls: 0, maxStdoutBytes: undefined });
    expect(limits).toEqual({ ...DEFAULT_LIMITS, timeoutMs: 1000, maxToolCalls: 0 });
    expect(limits).not.toBe(DEFAULT_LIMITS);
  });

  it.each([
    ["negative", { maxToolCalls: -1 }, "Limit maxToolCalls must be a non-negative integer, got -1"],
    ["fractional", { timeoutMs: 1.5 }, "Limit timeoutMs must be a non-negative integer, got 1.5"],
    ["NaN", { maxStdoutBytes: Number.NaN }, "Limit maxStdoutBytes must be a non-negative integer, got NaN"],
    ["infinite", { maxFrameBytes: Number.POSITIVE_INFINITY }, "Limit maxFrameBytes must be a non-negative integer, got Infinity"],
    ["a string", { killGraceMs: "5" }, "Limit killGraceMs must be a non-negative integer, got 5"],
    ["a zero timeout", { timeoutMs: 0 }, "Limit timeoutMs must be positive"],
  ])("rejects %s values", (_, overrides, message) => {
    expect(invalid(overrides).message).toBe(message);
  });

  it.each(["maxMemory", "toString", "constructor", "hasOwnProperty"])("rejects the unknown limit %s", (name) => {
    expect(invalid({ [name]: 5 }).message).toBe(`Unknown limit: ${name}`);
  });
});
