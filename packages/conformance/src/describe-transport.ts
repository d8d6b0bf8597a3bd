/**
 * `describeTransport()`: the cases every transport must pass, driven by REAL guest Python (the
 * modules `pythonGuestFiles` gives for the transport's client) against a real RpcDispatcher,
 * in a real environment. Only the Transport and Environment contracts are used.
 */
import { afterAll, beforeAll, expect, it } from "vitest";
import type { Environment, Transport } from "@codecall/core";
import { RpcErrorCode } from "@codecall/core/protocol";
import { describeIntegration } from "./integration.js";
import { runGuest, type GuestRunOptions } from "./transport-harness.js";

/** Transport-specific garbage, fed from inside the guest (see {@link TransportSuiteOptions.malformedInput}). */
export interface MalformedInputCase {
  /**
   * A Python script (the guest module is importable as `codecall`; the transport's guest env vars
   * are set) that pushes malformed input through the transport's own channel — raw bytes on a
   * socket, a garbage request file, a wrong token — and prints what came back for each, e.g. the
   * JSON-RPC error code, or `removed` for input the transport deletes unanswered by design. It must
   * not call tools itself: the suite checks that nothing it sends is dispatched.
   */
  python: string;
  /** Exactly what `python` prints when the host behaves. */
  expectedOutput: string;
}

export interface TransportSuiteOptions {
  /** Suite title, e.g. "file on local". */
  name: string;
  /**
   * A fresh transport for each case. Give a polling transport its fastest settings here: the
   * exactly-once case is meant to run with a tiny interval.
   */
  transport: () => Transport;
  /** The environment the guest runs in (it needs the interpreter); the suite closes it. */
  createEnvironment: () => Promise<Environment> | Environment;
  /** Garbage in this transport's own terms, answered with errors while the run goes on. */
  malformedInput: MalformedInputCase;
  /** When set, the service is missing: the suite is skipped (or fails under CI) with this reason. */
  unavailableReason?: string;
  /** Per-test timeout in ms (default 60 s). */
  testTimeoutMs?: number;
  /** Python interpreter command inside the environment (default `python3`). */
  interpreter?: string;
}

export function describeTransport(options: TransportSuiteOptions): void {
  describeIntegration(`Transport conformance: ${options.name}`, options.unavailableReason, () => {
    const timeout = options.testTimeoutMs ?? 60_000;
    let environment: Environment;
    const run = (python: string, extra: GuestRunOptions = {}) =>
      runGuest(environment, options.transport(), python, {
        ...extra,
        interpreter: options.interpreter ?? "python3",
        timeoutMs: timeout - 5_000,
      });
    /** Runs `python` and returns its stdout, failing with its stderr when it did not exit 0. */
    const outputOf = async (python: string, extra: GuestRunOptions = {}) => {
      const guest = await run(python, extra);
      expect(guest.result.stderr).toBe("");
      expect(guest.result.exitCode).toBe(0);
      return guest;
    };

    beforeAll(async () => {
      environment = await options.createEnvironment();
    }, timeout);

    afterAll(async () => {
      await environment?.close();
    }, timeout);

    it(
      "answers sequential calls in order, each with its own result",
      async () => {
        const guest = await outputOf("from codecall import seq\nprint([seq(i) for i in range(20)])");
        expect(guest.result.stdout).toBe(`${JSON.stringify(Array.from({ length: 20 }, (_, i) => i * 2)).replace(/,/g, ", ")}\n`);
        expect(guest.probe.sequence).toEqual(Array.from({ length: 20 }, (_, i) => i));
      },
      timeout,
    );

    it(
      "keeps calls from threads and forked processes in flight together",
      async () => {
        // Six calls that each wait until all six are waiting: a transport that serialises calls
        // (or serves one process only) cannot answer them with 6.
        const guest = await outputOf(`
import multiprocessing, threading
from codecall import rendezvous
def in_threads(results):
    threads = [threading.Thread(target=lambda: results.append(rendezvous(6))) for _ in range(3)]
    for thread in threads: thread.start()
    for thread in threads: thread.join()
def child(queue):
    results = []
    in_threads(results)
    queue.put(results)
context = multiprocessing.get_context("fork")
queue = context.Queue()
process = context.Process(target=child, args=(queue,))
process.start()
mine = []
in_threads(mine)
theirs = queue.get()
process.join()
print(sorted(mine + theirs))
`);
        expect(guest.result.stdout).toBe("[6, 6, 6, 6, 6, 6]\n");
        expect(guest.probe.maxWaiting).toBe(6);
      },
      timeout,
    );

    it(
      "carries arguments and results of several MB intact",
      async () => {
        const guest = await outputOf(`
import hashlib
from codecall import echo, blob
text = "".join(chr(0x41 + (i % 26)) for i in range(4_000_000)) + "é✓\\n\\"{}"
back = echo(text)
print(len(back) == len(text), hashlib.sha256(back.encode()).digest() == hashlib.sha256(text.encode()).digest())
big = blob(5_000_000)
print(len(big), big[0], set(big[1:]) == {"x"})
`);
        expect(guest.result.stdout).toBe("True True\n5000000 é True\n");
      },
      timeout,
    );

    it(
      "answers a frame over the limit with FrameTooLarge, and later calls work",
      async () => {
        const guest = await outputOf(
          `
import _codecall_protocol
from codecall import echo, ToolError
_codecall_protocol.MAX_FRAME_BYTES = 1 << 40  # skip the client's own check: the host must refuse it
try:
    echo("y" * 2_000_000)
    print("accepted")
except ToolError as error:
    print(error.code)
print(echo("after"))
`,
          { maxFrameBytes: 1 << 20 },
        );
        expect(guest.result.stdout).toBe(`${RpcErrorCode.FrameTooLarge}\nafter\n`);
        expect(guest.dispatcher.toolCallsMade).toBe(1);
      },
      timeout,
    );

    it(
      "answers malformed input with errors, dispatches none of it, and goes on",
      async () => {
        const guest = await outputOf(`${options.malformedInput.python}\nfrom codecall import echo\nprint(echo("still serving"))\n`);
        expect(guest.result.stdout).toBe(`${options.malformedInput.expectedOutput}still serving\n`);
        expect(guest.dispatcher.toolCallsMade).toBe(1);
      },
      timeout,
    );

    it(
      "fails pending calls with ToolError when the session closes, instead of hanging",
      async () => {
        const guest = await outputOf(
          `
from codecall import hang, echo, ToolError
try:
    hang()
    print("returned")
except ToolError as error:
    print("pending call failed")
try:
    echo("after close")
    print("answered")
except ToolError:
    print("new call failed")
`,
          {
            // Close the session, not the dispatcher: the tool stays pending on the host.
            onToolCall: (event, session) => {
              if (event.phase === "start" && event.name === "hang") void session.close();
            },
          },
        );
        expect(guest.result.stdout).toBe("pending call failed\nnew call failed\n");
      },
      timeout,
    );

    it(
      "dispatches each of 50 concurrent calls exactly once",
      async () => {
        const guest = await outputOf(`
from concurrent.futures import ThreadPoolExecutor
from codecall import count
keys = [f"k{i}" for i in range(50)]
with ThreadPoolExecutor(10) as pool:
    results = list(pool.map(count, keys))
print(results == keys)
`);
        expect(guest.result.stdout).toBe("True\n");
        expect(guest.probe.counts.size).toBe(50);
        expect([...guest.probe.counts.values()].every((times) => times === 1)).toBe(true);
        expect(guest.dispatcher.toolCallsMade).toBe(50);
      },
      timeout,
    );
  });
}
