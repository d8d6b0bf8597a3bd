/**
 * The docker backend's options parsed by their declaration, then turned into what the Docker API
 * takes. A wrong option fails here, with the option named, before any container exists.
 */
import { CodecallError } from "@codecall/core";
import type { OptionValues } from "@codecall/core/backend-kit";
import { environmentOptions } from "./docker-options.js";
import { memoryBytes, memoryProblem } from "./memory-size.js";

/** Options checked and normalised; limits converted to the Docker API's units. */
export interface ParsedDockerOptions extends Omit<OptionValues<typeof environmentOptions.specs>, "memory" | "cpus"> {
  /** `memory` in bytes. */
  memoryBytes?: number;
  /** `cpus` in billionths of a CPU (the API's `NanoCpus`). */
  nanoCpus?: number;
}

export function parseDockerOptions(raw: unknown): ParsedDockerOptions {
  const { memory, cpus, ...parsed } = environmentOptions.parse(raw);
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
  return {
    ...parsed,
    ...(memory === undefined ? {} : { memoryBytes: parseMemory(memory) }),
    ...(cpus === undefined ? {} : { nanoCpus: Math.round(cpus * 1e9) }),
  };
}

/** `536870912`, `"512m"`, `"2g"`, `"1.5g"` → bytes (units of 1024, as in `docker run --memory`). */
export function parseMemory(value: unknown): number {
  return memoryBytes(value) ?? environmentOptions.fail("memory", memoryProblem(value));
}
