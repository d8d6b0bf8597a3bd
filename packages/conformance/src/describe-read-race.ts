/**
 * The size-cap race suite: code that checks a file's size and then reads it (read_file and patch
 * do) must bound the read itself, because a script can swap the path for a bigger file between the
 * two. The suite flips a symlink from a small file to a big one — right after every command the
 * reader runs (deterministic), and in a tight loop inside the environment — and asserts on the
 * bytes that crossed to the host: no `readFile` ever returns more than the cap.
 */
import { afterAll, beforeAll, expect, it } from "vitest";
import { CodecallError, type Environment, type ExecOptions, type ExecResult, type ReadFileOptions } from "@codecall/core";
import { shellQuote as q } from "@codecall/core/plugin-kit";
import { describeIntegration } from "./integration.js";

/** Reads `path` through `environment` the way the code under test does (a tool call, say). */
export type CappedReader = (environment: Environment, path: string) => Promise<unknown>;

export interface ReadRaceSuiteOptions {
  /** Shown in the suite's title. */
  name: string;
  /** A fresh environment for the suite; closed at the end. */
  create: () => Environment | Promise<Environment>;
  /** The cap the readers apply, in bytes. */
  maxBytes: number;
  /** The code under test, by name. Each must refuse a file over `maxBytes` (or fail otherwise). */
  readers: Readonly<Record<string, CappedReader>>;
  /** Calls per reader while the swap loop runs (default 40). */
  rounds?: number;
  /** Per-test timeout in ms (default 120 s). */
  timeoutMs?: number;
  /** Why the backend's service is missing; the suite then skips (or fails under CODECALL_REQUIRE_INTEGRATION=1). */
  unavailableReason?: string | undefined;
}

/** What an environment handed to the host through `readFile`. */
interface ReadLog {
  environment: Environment;
  /** Bytes of the largest `readFile` result so far. */
  largest: number;
}

/** Size of the big file: far over any cap the suite is meant for, yet quick to make. */
const BIG_BYTES = 4 * 1024 * 1024;

export function describeReadRace(options: ReadRaceSuiteOptions): void {
  const timeout = options.timeoutMs ?? 120_000;
  const rounds = options.rounds ?? 40;

  describeIntegration(`size caps under a symlink swap: ${options.name}`, options.unavailableReason, () => {
    let environment: Environment;
    let dir: string;
    let link: string;

    const pointLinkAt = (target: "small" | "big") =>
      environment.execute(`cd ${q(dir)} && ln -sf ${target}.txt .next-${target} && mv -f .next-${target} link.txt`);

    beforeAll(async () => {
      environment = await options.create();
      dir = await environment.tempDir();
      link = `${dir}/link.txt`;
      await environment.writeFile(`${dir}/small.txt`, "a small file\n");
      const made = await environment.execute(`cd ${q(dir)} && yes 'a line of a big file' | head -c ${BIG_BYTES} > big.txt && wc -c < big.txt`);
      expect(made.stdout.trim()).toBe(String(BIG_BYTES));
      expect(options.maxBytes).toBeLessThan(BIG_BYTES);
    }, timeout);

    afterAll(async () => {
      await environment?.remove(dir).catch(() => {});
      await environment?.close();
    }, timeout);

    it(
      "reads no more than the cap when the file is swapped right after each command the reader runs",
      async () => {
        for (const [name, read] of Object.entries(options.readers)) {
          for (let round = 0; round < 3; round += 1) {
            await pointLinkAt("small");
            const log = logReads(environment, () => pointLinkAt("big"));
            const error = await read(log.environment, link).then(
              () => undefined,
              (caught: unknown) => caught,
            );
            expect(log.largest, `${name} let ${log.largest} bytes cross`).toBeLessThanOrEqual(options.maxBytes);
            expect(CodecallError.isInstance(error, "FILE_TOO_LARGE"), `${name} should refuse the big file, got ${String(error)}`).toBe(true);
          }
        }
      },
      timeout,
    );

    it(
      "reads no more than the cap while a script swaps the file in a tight loop",
      async () => {
        await pointLinkAt("small");
        const swapper = await environment.spawn(
          `cd ${q(dir)} && while :; do ln -sf big.txt .b && mv -f .b link.txt; ln -sf small.txt .s && mv -f .s link.txt; done`,
          { timeoutMs: timeout },
        );
        try {
          const log = logReads(environment);
          for (const [name, read] of Object.entries(options.readers)) {
            for (let round = 0; round < rounds; round += 1) {
              await read(log.environment, link).catch(() => {});
              expect(log.largest, `${name} let ${log.largest} bytes cross`).toBeLessThanOrEqual(options.maxBytes);
            }
          }
        } finally {
          await swapper.kill();
        }
      },
      timeout,
    );
  });
}

/** `inner` with every `readFile` result measured, and `afterCommand` run after each command. */
function logReads(inner: Environment, afterCommand?: () => Promise<unknown>): ReadLog {
  const log: ReadLog = { environment: inner, largest: 0 };
  const afterwards = async (result: ExecResult) => {
    await afterCommand?.();
    return result;
  };
  log.environment = new Proxy(inner, {
    get(target, property) {
      if (property === "readFile") {
        return async (path: string, readOptions?: ReadFileOptions) => {
          const bytes = await target.readFile(path, readOptions);
          log.largest = Math.max(log.largest, bytes.length);
          return bytes;
        };
      }
      if (property === "execute" || property === "executeOneshot") {
        return (command: string, execOptions?: ExecOptions) => target[property](command, execOptions).then(afterwards);
      }
      // Read on the real object: its getters use private fields a proxy does not have.
      const value: unknown = Reflect.get(target, property);
      return typeof value === "function" ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
  return log;
}
