import { existsSync } from "node:fs";
import { lstat, mkdir, mkdtemp, readdir, readFile, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { createEnvironment, type LocalEnvironment } from "@codecall/backend-local";
import { describeIntegration } from "@codecall/conformance";
import { parsePollOutput, pollCommand, RPC_DIR_GONE_EXIT_CODE, type PollInput } from "../src/poll-script.js";
import { createRpcDirCommand } from "../src/rpc-dir.js";

/**
 * The script must run on any POSIX sh with any awk: the system's (dash and mawk on Debian), and
 * busybox (Alpine images) and gawk when this machine has them, each put first on PATH.
 */
interface Flavour {
  name: string;
  /** Absolute path of the binary providing the tools, or undefined for the system's own. */
  binary?: string;
  tools: string[];
  shell?: string;
}
const FLAVOURS: Flavour[] = [
  { name: "system sh and awk", tools: [] },
  { name: "busybox sh and tools", binary: "/usr/bin/busybox", tools: ["sh", "awk", "mv", "rm", "mkdir"], shell: "sh" },
  { name: "gawk", binary: "/usr/bin/gawk", tools: ["awk"] },
];

for (const flavour of FLAVOURS) {
  const missing = flavour.binary !== undefined && !existsSync(flavour.binary);
  const unavailableReason = missing ? `${flavour.binary} is not installed (scripts/ci/guest-tools.sh installs it)` : undefined;
  describeIntegration(`poll script under ${flavour.name}`, unavailableReason, () => describePollScript(flavour));
}

function describePollScript(flavour: Flavour): void {
  let environment: LocalEnvironment;
  let toolDir: string | undefined;
  let runDir: string;
  let rpc: string;
  let polls = 0;

  /** Runs one poll; returns the parsed requests (undefined when the output was incomplete). */
  const poll = async (input: Partial<PollInput> = {}) => {
    polls += 1;
    const boundary = `b0undary${polls}`;
    const { command, stdin } = pollCommand({
      rpcDir: rpc,
      boundary,
      maxFileBytes: 1 << 20,
      budgetBytes: 1 << 20,
      maxClaims: 100,
      lingerMs: 0,
      responses: new Map(),
      acks: [],
      closing: false,
      ...input,
    });
    const result = await environment.executeOneshot(command, { stdin });
    return { result, requests: parsePollOutput(result.stdout, boundary) };
  };
  const request = (name: string, content: string | Uint8Array) => writeFile(path.join(rpc, "requests", name), content);
  const list = (dir: string) => readdir(path.join(rpc, dir)).then((names) => names.sort());

  beforeAll(async () => {
    if (flavour.binary === undefined) return;
    toolDir = await mkdtemp(path.join(tmpdir(), "codecall-tools-"));
    for (const tool of flavour.tools) await symlink(flavour.binary, path.join(toolDir, tool));
  });

  afterAll(async () => {
    if (toolDir) await rm(toolDir, { recursive: true, force: true });
  });

  beforeEach(async () => {
    environment = createEnvironment({
      ...(toolDir && flavour.shell ? { shell: path.join(toolDir, flavour.shell) } : {}),
      ...(toolDir ? { env: { ...process.env, PATH: `${toolDir}:${process.env.PATH}` } } : {}),
    });
    runDir = await environment.tempDir();
    rpc = path.join(runDir, "rpc");
    expect((await environment.executeOneshot(createRpcDirCommand(rpc))).exitCode).toBe(0);
  });

  afterEach(async () => {
    await rm(runDir, { recursive: true, force: true });
    await environment.close();
  });

  it("creates a private RPC dir, and refuses one that exists already", async () => {
    expect((await lstat(rpc)).mode & 0o777).toBe(0o700);
    expect((await lstat(path.join(rpc, "requests"))).mode & 0o777).toBe(0o700);
    expect((await environment.executeOneshot(createRpcDirCommand(rpc))).exitCode).not.toBe(0);
  });

  it("claims requests into claimed/ and prints each one whole, newlines included", async () => {
    const tricky = 'token\n{"a": "b0undary1 x new 3"}\n\nlast line without newline';
    await request("a-1.json", tricky);
    await request("b_2.json", "token\n{}\n");
    const { result, requests } = await poll();
    expect(result.exitCode).toBe(0);
    expect(requests).toEqual([
      { id: "a-1", fresh: true, size: Buffer.byteLength(tricky), content: tricky },
      { id: "b_2", fresh: true, size: 9, content: "token\n{}\n" },
    ]);
    expect(await list("requests")).toEqual([]);
    expect(await list("claimed")).toEqual(["a-1.json", "b_2.json"]);
  });

  it("lists an unacknowledged claim again as old, and drops it once acknowledged", async () => {
    await request("r1.json", "t\n{}\n");
    expect((await poll()).requests?.map((entry) => [entry.id, entry.fresh])).toEqual([["r1", true]]);
    // The host "lost" that output: the request is still there for it.
    expect((await poll()).requests?.map((entry) => [entry.id, entry.fresh])).toEqual([["r1", false]]);
    expect((await poll({ acks: ["r1"] })).requests).toEqual([]);
    expect(await list("claimed")).toEqual([]);
  });

  it("writes responses from stdin into responses/, large and non-ASCII ones intact", async () => {
    const large = JSON.stringify({ jsonrpc: "2.0", id: "big", result: "é✓ ".repeat(700_000) });
    const { result } = await poll({
      responses: new Map([
        ["small", '{"jsonrpc":"2.0","id":"small","result":1}\n'],
        ["big", `${large}\n`],
      ]),
    });
    expect(result.exitCode).toBe(0);
    expect(await list("responses")).toEqual(["big.json", "small.json"]);
    expect(await readFile(path.join(rpc, "responses", "big.json"), "utf8")).toBe(`${large}\n`);
    expect(await readFile(path.join(rpc, "responses", "small.json"), "utf8")).toBe('{"jsonrpc":"2.0","id":"small","result":1}\n');
    expect(await list("host-tmp")).toEqual([]);
  });

  it("after writing answers, waits for the next request and claims it in the same poll", async () => {
    const pending = poll({ lingerMs: 20_000, responses: new Map([["prev", '{"id":"prev"}\n']]) });
    // The guest reads its answer, then writes its next request while the poll still lingers.
    await vi.waitFor(async () => expect(await list("responses")).toEqual(["prev.json"]), { timeout: 10_000, interval: 5 });
    await request("next.json", "t\n{}");
    expect((await pending).requests?.map((entry) => [entry.id, entry.fresh])).toEqual([["next", true]]);
  });

  it("does not linger when it wrote no answers", async () => {
    // With a linger this long, a poll that waited would outlast the test's timeout.
    const { requests } = await poll({ lingerMs: 600_000, acks: ["nothing"] });
    expect(requests).toEqual([]);
  });

  it("removes unread every entry that is not a regular file named <id>.json", async () => {
    const outside = path.join(runDir, "outside.json");
    await writeFile(outside, "keep me");
    await request("space name.json", "x");
    await request("$(touch pwned).json", "x");
    await request(".hidden.json", "x");
    await request("..json", "x");
    await request("line\nbreak.json", "x");
    await request("note.txt", "x");
    await request(`${"a".repeat(129)}.json`, "x");
    await mkdir(path.join(rpc, "requests", "dir.json"));
    await symlink(outside, path.join(rpc, "requests", "link.json"));
    await environment.execute(`mkfifo ${path.join(rpc, "requests", "fifo.json")}`);
    await request(`${"b".repeat(128)}.json`, "ok");
    const { requests } = await poll();
    expect(requests?.map((entry) => entry.id)).toEqual(["b".repeat(128)]);
    expect(await list("requests")).toEqual([]);
    expect(await list("claimed")).toEqual([`${"b".repeat(128)}.json`]);
    expect(await readFile(outside, "utf8")).toBe("keep me");
    expect(await readdir(runDir)).toEqual(["outside.json", "rpc"]);
  });

  it("also removes what a guest put straight into claimed/ that is no request", async () => {
    await writeFile(path.join(rpc, "claimed", "bad name.json"), "x");
    await writeFile(path.join(rpc, "claimed", "line\nbreak.json"), "x");
    await environment.execute(`mkfifo ${path.join(rpc, "claimed", "fifo.json")}`);
    await writeFile(path.join(rpc, "claimed", "fine.json"), "t\n{}");
    const { requests } = await poll();
    expect(requests?.map((entry) => [entry.id, entry.fresh])).toEqual([["fine", false]]);
    expect(await list("claimed")).toEqual(["fine.json"]);
  });

  it("reports a file over the size limit by its size only", async () => {
    await request("huge.json", "x".repeat(5000));
    const { requests } = await poll({ maxFileBytes: 4096 });
    expect(requests).toEqual([{ id: "huge", fresh: true, size: 5000, content: "" }]);
  });

  it("prints about one budget of bytes per poll and the rest in the next one", async () => {
    for (const name of ["p1", "p2", "p3"]) await request(`${name}.json`, "y".repeat(3000));
    const first = await poll({ budgetBytes: 5000 });
    expect(first.requests?.map((entry) => entry.id)).toEqual(["p1"]);
    const second = await poll({ budgetBytes: 5000, acks: ["p1"] });
    expect(second.requests?.map((entry) => [entry.id, entry.fresh])).toEqual([["p2", false]]);
  });

  it("claims at most maxClaims requests per poll", async () => {
    for (let index = 0; index < 5; index += 1) await request(`c${index}.json`, "z");
    expect((await poll({ maxClaims: 2 })).requests).toHaveLength(2);
    expect(await list("requests")).toHaveLength(3);
  });

  it("leaves a request whose id is still claimed for a later poll", async () => {
    await request("dup.json", "first");
    await poll();
    await request("dup.json", "second");
    const { requests } = await poll();
    expect(requests?.map((entry) => [entry.content, entry.fresh])).toEqual([["first", false]]);
    const after = await poll({ acks: ["dup"] });
    expect(after.requests?.map((entry) => [entry.content, entry.fresh])).toEqual([["second", true]]);
  });

  it("on closing writes the last responses, then the closed marker, and claims nothing", async () => {
    await request("late.json", "x");
    const { requests } = await poll({ closing: true, responses: new Map([["done", '{"id":"done"}\n']]) });
    expect(requests).toEqual([]);
    expect(await list("responses")).toEqual(["done.json"]);
    expect(await list("requests")).toEqual(["late.json"]);
    expect((await lstat(path.join(rpc, "closed"))).isFile()).toBe(true);
  });

  it("exits with its own code and creates nothing once the RPC dir is gone", async () => {
    await rm(rpc, { recursive: true });
    const { result } = await poll({ responses: new Map([["x", "{}\n"]]) });
    expect(result.exitCode).toBe(RPC_DIR_GONE_EXIT_CODE);
    expect(await readdir(runDir)).toEqual([]);
  });

  it.skipIf(flavour.binary === undefined)("really runs the flavour's awk", async () => {
    const result = await environment.execute("command -v awk");
    expect(result.stdout.trim()).toBe(path.join(toolDir!, "awk"));
  });
}

describe("parsePollOutput", () => {
  it("needs the end line: truncated output is a lost poll", () => {
    expect(parsePollOutput("B r1 new 4\nabc\n\n", "B")).toBeUndefined();
    expect(parsePollOutput("B r1 new 4\nabc\n\nB end\n", "B")).toEqual([{ id: "r1", fresh: true, size: 4, content: "abc\n" }]);
  });

  it("refuses text outside the framing and skips ids that break the rule", () => {
    expect(parsePollOutput("noise\nB end\n", "B")).toBeUndefined();
    expect(parsePollOutput("B r1 maybe 4\nabc\n\nB end\n", "B")).toBeUndefined();
    expect(parsePollOutput("B ../x new 4\nabc\n\nB end\n", "B")).toEqual([]);
  });

  it("keeps content that imitates a header with another boundary", () => {
    const content = "t\nX r2 new 1\nq\n";
    expect(parsePollOutput(`B r1 old ${content.length}\n${content}\nB end\n`, "B")).toEqual([
      { id: "r1", fresh: false, size: content.length, content },
    ]);
  });
});

describe("pollCommand", () => {
  it("keeps payloads off the command line and refuses unsafe ids", () => {
    const base = { rpcDir: "/tmp/it's", boundary: "b", maxFileBytes: 1, budgetBytes: 1, maxClaims: 1, lingerMs: 0, acks: [], closing: false };
    const { command, stdin } = pollCommand({ ...base, responses: new Map([["r1", '{"secret":"s3cret-value"}\n']]) });
    expect(command).not.toContain("s3cret-value");
    expect(command).toContain("rpc='/tmp/it'\\''s'");
    expect(stdin).toBe('R r1 {"secret":"s3cret-value"}\n');
    expect(() => pollCommand({ ...base, responses: new Map(), acks: ["../x"] })).toThrow(TypeError);
  });
});
