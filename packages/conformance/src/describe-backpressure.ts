/**
 * `describeBackpressure()`: for transports whose guest end is a byte stream (a socket at
 * `CODECALL_RPC_SOCKET`), a guest that pipelines thousands of calls to a tool returning 1 MiB and
 * does not read the answers must not grow the host: the host's memory high-water mark stays under
 * a bound, and once the guest reads, every call is answered; meanwhile the other connections are
 * served. The host is this test process, so its own memory is what is measured. What all of a run's
 * connections hold together is bounded too: a connection over the run's limit is refused, and
 * unfinished frames share one budget; both are checked by what the guest is told.
 */
import { expect, it } from "vitest";
import type { Environment, Transport } from "@codecall/core";
import { RpcErrorCode } from "@codecall/core/protocol";
import connectionBoundsGuest from "./guest/connection_bounds_guest.py?raw";
import pipeliningGuest from "./guest/pipelining_guest.py?raw";
import { describeIntegration } from "./integration.js";
import { runGuest } from "./transport-harness.js";

export interface BackpressureSuiteOptions {
  /** Suite title, e.g. "uds on local". */
  name: string;
  /** A fresh transport for the case. */
  transport: () => Transport;
  /** The environment the guest runs in; the suite closes it. */
  createEnvironment: () => Promise<Environment> | Environment;
  /** When set, the service is missing: the suite is skipped (or fails under CI) with this reason. */
  unavailableReason?: string;
  /** Python interpreter command inside the environment (default `python3`). */
  interpreter?: string;
}

const CALLS = 500;
const ANSWER_BYTES = 1024 * 1024;
/** How long the guest sends without reading: long enough for an unbounded host to take gigabytes. */
const QUIET_SECONDS = 5;
/** Growth of the host's buffers allowed while the answers (500 MiB in all) wait for the guest. */
const MAX_BUFFER_GROWTH_BYTES = 200 * 1024 * 1024;
/** rss also holds garbage the JavaScript heap has not collected yet: a looser bound, still far below 1 GB. */
const MAX_RSS_GROWTH_BYTES = 400 * 1024 * 1024;
const TIMEOUT_MS = 300_000;
/** Twenty small calls: only a host (or relay) that lets one connection block the others takes long. */
const NEIGHBOURS_TIMEOUT_MS = 90_000;

export function describeBackpressure(options: BackpressureSuiteOptions): void {
  describeIntegration(`Backpressure: ${options.name}`, options.unavailableReason, () => {
    it(
      `keeps host memory bounded while a guest leaves ${CALLS} answers of 1 MiB unread, then answers them all`,
      async () => {
        const environment = await options.createEnvironment();
        const baseline = process.memoryUsage();
        const peak = { rss: baseline.rss, arrayBuffers: baseline.arrayBuffers };
        const sample = setInterval(() => {
          const now = process.memoryUsage();
          peak.rss = Math.max(peak.rss, now.rss);
          peak.arrayBuffers = Math.max(peak.arrayBuffers, now.arrayBuffers);
        }, 10);
        try {
          const guest = await runGuest(
            environment,
            options.transport(),
            `${pipeliningGuest}\npipeline(${CALLS}, ${ANSWER_BYTES}, ${QUIET_SECONDS})\n`,
            {
              interpreter: options.interpreter ?? "python3",
              timeoutMs: TIMEOUT_MS - 30_000,
            },
          );
          expect(guest.result).toMatchObject({ stderr: "", exitCode: 0, timedOut: false });
          expect(JSON.parse(guest.result.stdout)).toEqual({ answered: CALLS + 1, bad: 0, firstBad: [] });
          expect(guest.dispatcher.toolCallsMade).toBe(CALLS);
        } finally {
          clearInterval(sample);
          await environment.close();
        }
        const growth = { rss: peak.rss - baseline.rss, arrayBuffers: peak.arrayBuffers - baseline.arrayBuffers };
        console.info(`[codecall] ${options.name}: host memory growth rss ${mib(growth.rss)}, arrayBuffers ${mib(growth.arrayBuffers)}`);
        expect(growth.arrayBuffers).toBeLessThan(MAX_BUFFER_GROWTH_BYTES);
        expect(growth.rss).toBeLessThan(MAX_RSS_GROWTH_BYTES);
      },
      TIMEOUT_MS,
    );

    it(
      "answers other connections while one leaves its answers unread and another resets mid-answer",
      async () => {
        const environment = await options.createEnvironment();
        try {
          const guest = await runGuest(environment, options.transport(), `${pipeliningGuest}\nstalled_neighbours(${CALLS}, ${ANSWER_BYTES})\n`, {
            interpreter: options.interpreter ?? "python3",
            timeoutMs: NEIGHBOURS_TIMEOUT_MS - 30_000,
          });
          expect(guest.result).toMatchObject({ stderr: "", exitCode: 0, timedOut: false, stdout: '{"answers": true}\n' });
        } finally {
          await environment.close();
        }
      },
      NEIGHBOURS_TIMEOUT_MS,
    );

    it(
      "refuses a connection over the run's limit with an answer that says why, and goes on serving the others",
      async () => {
        const environment = await options.createEnvironment();
        try {
          const guest = await runGuest(environment, options.transport(), `${connectionBoundsGuest}\ntoo_many_connections(4)\n`, {
            interpreter: options.interpreter ?? "python3",
            timeoutMs: NEIGHBOURS_TIMEOUT_MS - 30_000,
            maxConnections: 4,
          });
          expect(guest.result).toMatchObject({ stderr: "", exitCode: 0, timedOut: false });
          expect(guest.result.stdout).toBe(
            `True\nserved\nNone ${RpcErrorCode.InvalidRequest} Connection refused True\nclosed by the host\nchild refused: True\nstill served\n`,
          );
        } finally {
          await environment.close();
        }
      },
      NEIGHBOURS_TIMEOUT_MS,
    );

    it(
      "refuses the unfinished frame that would pass the run's budget, and serves the rest",
      async () => {
        const environment = await options.createEnvironment();
        try {
          // Frames of at most 1 MiB: the run's connections may hold 4 MiB of unfinished ones.
          const guest = await runGuest(environment, options.transport(), `${connectionBoundsGuest}\nunfinished_frames(5, 900_000)\n`, {
            interpreter: options.interpreter ?? "python3",
            timeoutMs: NEIGHBOURS_TIMEOUT_MS - 30_000,
            maxFrameBytes: 1024 * 1024,
          });
          expect(guest.result).toMatchObject({ stderr: "", exitCode: 0, timedOut: false });
          const refusal = `${RpcErrorCode.FrameTooLarge} Request refused: the run's connections already held 4194304 bytes of unfinished requests, the most the host buffers for one run`;
          expect(guest.result.stdout).toBe(`${JSON.stringify([refusal, "echoed", "echoed", "echoed", "echoed"]).replace(/","/g, '", "')}\nTrue\n`);
        } finally {
          await environment.close();
        }
      },
      NEIGHBOURS_TIMEOUT_MS,
    );
  });
}

function mib(bytes: number): string {
  return `${(bytes / 1024 / 1024).toFixed(0)} MiB`;
}
