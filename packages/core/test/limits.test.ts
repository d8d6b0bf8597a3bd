import { describe, expect, it } from "vitest";
import { CodecallError } from "../src/errors.js";
import { DEFAULT_LIMITS, MAX_DURATION_MS, resolveLimits } from "../src/execute/limits.js";

function invalid(overrides: Record<string, unknown>): CodecallError {
  try {
    resolveLimits(overrides);
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
      spillBytes: 5_000_000,
      maxStderrBytes: 10_000,
      maxToolCalls: 50,
      maxFrameBytes: 16 * 1024 * 1024,
      maxJsonDepth: 64,
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
    ["a string", { killGraceMs: "5" }, 'Limit killGraceMs must be a non-negative integer, got "5"'],
    ["a boolean", { timeoutMs: true }, "Limit timeoutMs must be a non-negative integer, got true"],
    ["a zero timeout", { timeoutMs: 0 }, "Limit timeoutMs must be positive"],
    ["an absurd timeout", { timeoutMs: 1e15 }, "Limit timeoutMs must be at most 31536000000 ms (365 days), got 1000000000000000"],
    ["an absurd kill grace", { killGraceMs: MAX_DURATION_MS + 1 }, "Limit killGraceMs must be at most 31536000000 ms (365 days), got 31536000001"],
  ])("rejects %s values", (_, overrides, message) => {
    expect(invalid(overrides).message).toBe(message);
  });

  it("takes timeouts longer than a timer can hold (25 days), up to 365 days", () => {
    expect(resolveLimits({ timeoutMs: 2_200_000_000 }).timeoutMs).toBe(2_200_000_000);
    expect(resolveLimits({ timeoutMs: MAX_DURATION_MS }).timeoutMs).toBe(MAX_DURATION_MS);
  });

  it.each(["maxMemory", "toString", "constructor", "hasOwnProperty"])("rejects the unknown limit %s", (name) => {
    expect(invalid({ [name]: 5 }).message).toBe(`Unknown limit: ${name}`);
  });
});
