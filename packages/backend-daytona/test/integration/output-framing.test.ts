// Output crosses the daemon's log and the SDK's log demultiplexer intact, whatever the framing of
// the log WebSocket's messages and however a broken stream is caught up: every byte arrives on its
// own stream (stdout or stderr), exactly once, in order. The SDK misreads some framings (a message
// that ends right after a stream label: the label's line goes to the wrong stream, or — before the
// first label it recognised — nowhere), so these frame the fake's log every such way, through both
// bridges: python3's (spawned commands, where the sandbox has python3) and the sh fallback.
import { statSync } from "node:fs";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { executeCode } from "@codecall/core";
import { describeIntegration } from "@codecall/conformance";
import { createTransport as createFileTransport } from "@codecall/transport-file";
import { createEnvironment, type DaytonaEnvironment } from "../../src/index.js";
import { FakeDaytona } from "../fake-daytona/fake-daytona.js";
import { afterEveryLabel, atOffsets, everyBytes, randomSizes, type LogFraming } from "../fake-daytona/log-framing.js";

const withPython = await FakeDaytona.start();
const withoutPython = await FakeDaytona.start({ withoutPython: true });
afterAll(() => Promise.all([withPython.close(), withoutPython.close()]));
afterEach(() => {
  for (const fake of [withPython, withoutPython]) {
    fake.logFraming = undefined;
    fake.logReadBytes = 1024;
    fake.dropNextLogStreamAfter = undefined;
  }
});

/** Writes of a test command, in order: to fd 1 or 2, so many bytes. */
type Plan = ReadonlyArray<readonly [fd: 1 | 2, size: number]>;

/** The bytes of write `index`: every byte value, newlines and the daemon's label bytes among them. */
const writeBytes = (index: number, size: number) => Buffer.from(Array.from({ length: size }, (_, offset) => (index * 31 + offset) % 256));

function expected(plan: Plan): { stdout: Buffer; stderr: Buffer } {
  const pieces = (fd: 1 | 2) => plan.flatMap(([to, size], index) => (to === fd ? [writeBytes(index, size)] : []));
  return { stdout: Buffer.concat(pieces(1)), stderr: Buffer.concat(pieces(2)) };
}

/** Uploads the plan's bytes and spawns a command writing them back to back, each write a `dd` of its slice. */
async function runPlan(environment: DaytonaEnvironment, plan: Plan): Promise<{ stdout: Buffer; stderr: Buffer; exitCode: number }> {
  const dir = await environment.tempDir();
  await environment.writeFile(`${dir}/data`, Buffer.concat(plan.map(([, size], index) => writeBytes(index, size))));
  let offset = 0;
  const writes = plan.map(([fd, size]) => {
    const write = `dd if=data bs=65536 iflag=skip_bytes,count_bytes skip=${offset} count=${size}${fd === 2 ? " >&2" : ""} 2>/dev/null`;
    offset += size;
    return write;
  });
  const child = await environment.spawn(writes.join("\n"), { cwd: dir });
  await child.stdin.close();
  const [stdout, stderr, exit] = await Promise.all([
    new Response(child.stdout).arrayBuffer(),
    new Response(child.stderr).arrayBuffer(),
    child.wait(),
  ]);
  return { stdout: Buffer.from(stdout), stderr: Buffer.from(stderr), exitCode: exit.exitCode };
}

async function expectIntact(environment: DaytonaEnvironment, plan: Plan, what: string): Promise<void> {
  const result = await runPlan(environment, plan);
  const want = expected(plan);
  // Compared as hex so a failure shows where the streams differ, not two megabytes of bytes.
  expect({ stdout: result.stdout.toString("hex"), stderr: result.stderr.toString("hex"), exitCode: result.exitCode }, what).toEqual({
    stdout: want.stdout.toString("hex"),
    stderr: want.stderr.toString("hex"),
    exitCode: 0,
  });
}

/** A few short writes: a log of a few hundred bytes, cut at each of its offsets in turn. */
const SHORT: Plan = [
  [1, 1],
  [2, 2],
  [1, 3],
  [2, 1],
  [1, 4],
  [2, 10],
  [1, 2],
];

/** Writes of many sizes — around the encoding's line (1500 bytes) and read (48 KiB) sizes — on both streams, irregularly interleaved. */
const SIZES = [1, 2, 3, 4, 5, 10, 64, 255, 1499, 1500, 1501, 2999, 3000, 3001, 4096, 49151, 49152, 49153, 70000];
const MIXED: Plan = SIZES.flatMap((size, index) => [
  [index % 3 === 0 ? 2 : 1, size],
  [index % 2 === 0 ? 1 : 2, SIZES[(index * 7) % SIZES.length]!],
]);
/** The same mix without its big writes, for framings that send a message per byte or two. */
const SMALL_MIXED: Plan = MIXED.filter(([, size]) => size <= 3001);

describeIntegration("daytona output through every framing of the log stream", undefined, () => {
  it("keeps the first line when the log's first message is its stream label alone (executeCode, file transport)", async () => {
    // The flake this reproduces: the SDK drops what precedes the first label it recognises, and it
    // misses a label that ends a message; a script's first line then vanished.
    withPython.logFraming = () => atOffsets(3);
    await using environment = await createEnvironment({ ...withPython.connection });
    const result = await executeCode({
      code: 'print(["first"])\nprint(True)\nprint("third", "line")\n',
      environment,
      transport: createFileTransport(),
      tools: [],
    });
    expect(result).toMatchObject({ status: "success", output: "['first']\nTrue\nthird line\n" });
  });

  // Session commands, each with its own log (`agent: false`): the agent's one long log goes through
  // the same decoder, but a framing of a few bytes a message makes its start (its source, its
  // frames) take minutes; the conformance and execution suites cover it at the daemon's framing.
  for (const [bridge, fake] of [
    ["python3 bridge", withPython],
    ["sh bridge (no python3 in the sandbox)", withoutPython],
  ] as const) {
    describe(bridge, () => {
      it("delivers every byte once, on its stream, with a message cut at each offset of the log in turn", async () => {
        await using environment = await createEnvironment({ ...fake.connection, agent: false });
        // The log's length, from a run without cuts: the cuts below cover all of it and a little more.
        await expectIntact(environment, SHORT, "no cut");
        const sandbox = fake.sandboxes.get(await environment.sandboxId())!;
        const length = Math.max(
          ...[...sandbox.sessions.values()].flatMap((session) => [...session.commands.values()].map((command) => statSync(command.log).size)),
        );
        expect(length).toBeGreaterThan(50);
        // Eight commands at a time, each log stream cut at the next offset.
        let cut = 0;
        fake.logFraming = () => atOffsets((cut += 1));
        for (let first = 1; first <= length + 3; first += 8) {
          await Promise.all(Array.from({ length: 8 }, () => expectIntact(environment, SHORT, `one of the cuts at offsets ${first} to ${first + 7}`)));
        }
        expect(cut).toBeGreaterThan(length);
        // Dozens of session commands in a row through the fake daemon: 45 s on a loaded CI machine
        // (its 60 s default was missed once), not a hang.
      }, 240_000);

      const framings: Array<[string, (() => LogFraming) | undefined, Plan]> = [
        ["the fake's 1 KiB reads", undefined, MIXED],
        ["a message ending after every label", () => afterEveryLabel, MIXED],
        ["random messages up to 7 bytes", () => randomSizes(7, 7), SMALL_MIXED],
        ["random messages up to 100 bytes", () => randomSizes(100, 100), MIXED],
        ["random messages up to 3000 bytes", () => randomSizes(3000, 3000), MIXED],
        ...[1, 2, 3, 4].map((size): [string, () => LogFraming, Plan] => [`messages of ${size} bytes`, () => everyBytes(size), SMALL_MIXED]),
      ];
      for (const [name, framing, plan] of framings) {
        it(`delivers interleaved stdout and stderr of many sizes intact: ${name}`, async () => {
          fake.logFraming = framing;
          await using environment = await createEnvironment({ ...fake.connection, agent: false });
          await expectIntact(environment, plan, name);
        });
      }

      it("delivers them intact when the daemon merges the log into large messages", async () => {
        // Not larger: the SDK spreads a message's bytes into an array push, which overflows the
        // stack past about 125 KB (the stream then breaks off; the daemon sends 1 KiB).
        fake.logReadBytes = 64 * 1024;
        await using environment = await createEnvironment({ ...fake.connection, agent: false });
        await expectIntact(environment, MIXED, "64 KiB reads");
      });

      it("catches a broken stream up exactly once, whatever the framing of the stream before and after the break", async () => {
        await using environment = await createEnvironment({ ...fake.connection, agent: false });
        for (const [name, framing] of [
          ["first label alone", () => atOffsets(3)],
          ["after every label", () => afterEveryLabel],
          ["random", () => randomSizes(5, 40)],
        ] as const) {
          for (const dropAfter of [1, 2, 3, 5, 8]) {
            fake.logFraming = framing;
            fake.dropNextLogStreamAfter = dropAfter;
            await expectIntact(environment, SMALL_MIXED, `${name}, stream dropped after ${dropAfter} messages`);
          }
        }
        // Fifteen commands, each through a dropped log stream and its catch-up: 35–60 s under load.
      }, 240_000);
    });
  }
});
