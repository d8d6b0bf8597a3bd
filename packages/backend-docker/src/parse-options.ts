/**
 * Checks the options of the docker backend, which arrive as untyped JSON from the CLI and config
 * files, and turns them into what the Docker API takes. A wrong option fails here, with the option
 * named, before any container exists.
 */
import { CodecallError } from "@codecall/core";
import { DEFAULT_ENGINE_TIMEOUT_MS } from "./docker-connection.js";
import type { DockerEnvironmentOptions } from "./docker-options.js";

/** Default `pidsLimit`: generous for thread pools and subprocesses, fatal to fork bombs. */
export const DEFAULT_PIDS_LIMIT = 512;

const KNOWN_OPTIONS: ReadonlySet<string> = new Set<keyof DockerEnvironmentOptions>([
  "socketPath",
  "host",
  "engineTimeoutMs",
  "image",
  "pull",
  "container",
  "name",
  "labels",
  "workdir",
  "env",
  "user",
  "memory",
  "cpus",
  "pidsLimit",
  "network",
  "mounts",
  "readOnly",
  "tmpfs",
  "capDrop",
  "capAdd",
  "keepContainer",
]);

/** Options checked and normalised; limits converted to the Docker API's units. */
export interface ParsedDockerOptions extends Omit<DockerEnvironmentOptions, "memory" | "cpus" | "pidsLimit"> {
  /** `memory` in bytes. */
  memoryBytes?: number;
  /** `cpus` in billionths of a CPU (the API's `NanoCpus`). */
  nanoCpus?: number;
  pidsLimit: number;
  engineTimeoutMs: number;
}

export function parseDockerOptions(raw: unknown): ParsedDockerOptions {
  if (raw === undefined || raw === null) raw = {};
  if (typeof raw !== "object" || Array.isArray(raw)) fail("options", "must be an object");
  const input = raw as Record<string, unknown>;
  const unknown = Object.keys(input).filter((key) => !KNOWN_OPTIONS.has(key));
  if (unknown.length > 0) {
    throw new CodecallError(
      "INVALID_OPTIONS",
      `Unknown docker option ${unknown.map((key) => JSON.stringify(key)).join(", ")}. Known: ${[...KNOWN_OPTIONS].join(", ")}`,
    );
  }

  const parsed: ParsedDockerOptions = {
    pidsLimit: optionalInteger(input, "pidsLimit") ?? DEFAULT_PIDS_LIMIT,
    engineTimeoutMs: optionalInteger(input, "engineTimeoutMs") ?? DEFAULT_ENGINE_TIMEOUT_MS,
  };
  for (const key of ["socketPath", "host", "image", "container", "name", "workdir", "user", "network"] as const) {
    const value = optionalString(input, key);
    if (value !== undefined) parsed[key] = value;
  }
  for (const key of ["pull", "readOnly", "keepContainer"] as const) {
    const value = optionalBoolean(input, key);
    if (value !== undefined) parsed[key] = value;
  }
  for (const key of ["labels", "env", "tmpfs"] as const) {
    const value = optionalStringRecord(input, key);
    if (value !== undefined) parsed[key] = value;
  }
  for (const key of ["mounts", "capDrop", "capAdd"] as const) {
    const value = optionalStringList(input, key);
    if (value !== undefined) parsed[key] = value;
  }
  if (input.memory !== undefined) parsed.memoryBytes = parseMemory(input.memory);
  if (input.cpus !== undefined) {
    const cpus = input.cpus;
    if (typeof cpus !== "number" || !Number.isFinite(cpus) || cpus <= 0) fail("cpus", "must be a positive number of CPUs, e.g. 1.5");
    parsed.nanoCpus = Math.round(cpus * 1e9);
  }
  if (parsed.pidsLimit === 0 || parsed.pidsLimit < -1) fail("pidsLimit", "must be a positive number of processes, or -1 for no limit");
  if (parsed.engineTimeoutMs <= 0) fail("engineTimeoutMs", "must be positive");
  for (const mount of parsed.mounts ?? []) {
    if (!/^[^:]+:\/[^:]*(:[A-Za-z,]+)?$/.test(mount)) fail("mounts", `wants "source:/container/path[:options]", got ${JSON.stringify(mount)}`);
  }
  for (const key of Object.keys(parsed.env ?? {})) {
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(key)) fail("env", `has an invalid variable name ${JSON.stringify(key)}`);
  }
  if (parsed.image === undefined && parsed.container === undefined) {
    throw new CodecallError(
      "INVALID_OPTIONS",
      'The docker backend needs an image to create a container from (image: "python:3.12-slim", or -o image=...) or an existing container (container: "name")',
    );
  }
  if (parsed.image !== undefined && parsed.container !== undefined) {
    throw new CodecallError(
      "INVALID_OPTIONS",
      "Give the docker backend either image (create a container) or container (use a running one), not both",
    );
  }
  return parsed;
}

const MEMORY_UNITS: Readonly<Record<string, number>> = { "": 1, b: 1, k: 1024, m: 1024 ** 2, g: 1024 ** 3, t: 1024 ** 4 };

/** `536870912`, `"512m"`, `"2g"`, `"1.5g"` → bytes (units of 1024, as in `docker run --memory`). */
export function parseMemory(value: unknown): number {
  const text = typeof value === "number" ? String(value) : typeof value === "string" ? value.trim() : "";
  const match = /^(\d+(?:\.\d+)?)\s*([bkmgt]?)i?b?$/i.exec(text);
  const bytes = match ? Math.floor(Number(match[1]) * MEMORY_UNITS[match[2]!.toLowerCase()]!) : NaN;
  // The engine refuses less than 6 MiB; say so here, with the option's name.
  if (!Number.isSafeInteger(bytes) || bytes < 6 * 1024 ** 2)
    fail("memory", `must be at least 6m (bytes, or a number with b/k/m/g), got ${JSON.stringify(value)}`);
  return bytes;
}

function optionalString(input: Record<string, unknown>, key: string): string | undefined {
  const value = input[key];
  if (value === undefined) return undefined;
  // `-o user=1000` or `-o name=42` arrive as numbers from the CLI.
  if (typeof value === "number") return String(value);
  if (typeof value !== "string" || value === "") fail(key, "must be a non-empty string");
  return value;
}

function optionalBoolean(input: Record<string, unknown>, key: string): boolean | undefined {
  const value = input[key];
  if (value === undefined || typeof value === "boolean") return value;
  fail(key, "must be true or false");
}

function optionalInteger(input: Record<string, unknown>, key: string): number | undefined {
  const value = input[key];
  if (value === undefined) return undefined;
  if (typeof value !== "number" || !Number.isSafeInteger(value)) fail(key, "must be a whole number");
  return value;
}

function optionalStringRecord(input: Record<string, unknown>, key: string): Record<string, string> | undefined {
  const value = input[key];
  if (value === undefined) return undefined;
  if (typeof value !== "object" || value === null || Array.isArray(value)) fail(key, "must be an object of strings");
  const out: Record<string, string> = {};
  for (const [name, entry] of Object.entries(value)) {
    if (typeof entry !== "string" && typeof entry !== "number" && typeof entry !== "boolean")
      fail(key, `has a non-string value for ${JSON.stringify(name)}`);
    out[name] = String(entry);
  }
  return out;
}

function optionalStringList(input: Record<string, unknown>, key: string): string[] | undefined {
  const value = input[key];
  if (value === undefined) return undefined;
  // `-o capAdd=CHOWN` is a one-element list.
  const list = typeof value === "string" ? [value] : value;
  if (!Array.isArray(list) || !list.every((item) => typeof item === "string")) fail(key, "must be a list of strings");
  return list as string[];
}

function fail(option: string, problem: string): never {
  throw new CodecallError("INVALID_OPTIONS", `docker option ${option} ${problem}`, { details: { option } });
}
