// The CLI ends once the result is reported and the environment closed, whatever a tools module
// left behind: an interval at module level, a tool that never settles and ignores its abort signal,
// a child process holding a pipe.
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli } from "./support.js";

const LEFTOVERS = `import { spawn } from "node:child_process";
import { writeFileSync } from "node:fs";
setInterval(() => {}, 1_000);
export const stubborn = {
  name: "stubborn",
  description: "Never settles and ignores its abort signal.",
  parameters: { type: "object", properties: {} },
  execute: () => new Promise(() => {}),
};
export const leaky = {
  name: "leaky",
  description: "Answers, leaving a timer and a child holding a pipe to this process.",
  parameters: { type: "object", properties: {} },
  execute: () => {
    setTimeout(() => {}, 600_000);
    const child = spawn("sleep", ["600"], { stdio: ["ignore", "pipe", "ignore"] });
    writeFileSync("child.pid", String(child.pid));
    return "ok";
  },
};
`;

describe("codecall run after the result", () => {
  let dir: string;

  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), "codecall-cli-exit-"));
    await writeFile(path.join(dir, "leftovers.mjs"), LEFTOVERS);
  });

  afterAll(async () => {
    const pid = Number(await readFile(path.join(dir, "child.pid"), "utf8").catch(() => ""));
    if (pid > 0) process.kill(pid, "SIGKILL");
    await rm(dir, { recursive: true, force: true });
  });

  it("exits after printing, though a tools module left an interval, a timer and a child behind", async () => {
    const result = await runCli(["run", "--tools", "./leftovers.mjs", "-"], {
      cwd: dir,
      stdin: "from codecall import leaky\nprint(leaky())\n",
      deadlineMs: 90_000,
    });
    expect(result).toMatchObject({ killedAtDeadline: false, code: 0, stdout: "ok\n" });
  }, 120_000);

  it("exits after printing, though a tool in flight never settles", async () => {
    const script =
      "import threading, time\nfrom codecall import stubborn\nthreading.Thread(target=stubborn, daemon=True).start()\ntime.sleep(1)\nprint('done')\n";
    const result = await runCli(["run", "--tools", "./leftovers.mjs", "--json", "-"], { cwd: dir, stdin: script, deadlineMs: 90_000 });
    expect(result.killedAtDeadline).toBe(false);
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({ status: "success", output: "done\n" });
  }, 120_000);
});

const STRAY = `export const careless = {
  name: "careless",
  description: "Answers, leaving a rejected promise nobody handles and a timer that throws.",
  parameters: { type: "object", properties: {} },
  execute: () => {
    Promise.reject(new Error("stray rejection"));
    setTimeout(() => {
      throw new Error("stray throw");
    }, 10);
    return "answered";
  },
};
`;

describe("codecall run with a careless tools module", () => {
  let dir: string;

  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), "codecall-cli-stray-"));
    await writeFile(path.join(dir, "careless.mjs"), STRAY);
  });

  afterAll(() => rm(dir, { recursive: true, force: true }));

  it("reports a tool's unhandled rejection and uncaught throw on stderr, and finishes the run", async () => {
    const script = "import time\nfrom codecall import careless\nprint(careless())\ntime.sleep(0.5)\nprint(careless())\n";
    const result = await runCli(["run", "--tools", "./careless.mjs", "-"], { cwd: dir, stdin: script, deadlineMs: 90_000 });
    expect(result).toMatchObject({ killedAtDeadline: false, code: 0, stdout: "answered\nanswered\n" });
    expect(result.stderr).toContain("codecall: a promise was rejected and nothing handled it (ignored): Error: stray rejection");
    expect(result.stderr).toContain("codecall: an error was thrown and nothing caught it (ignored): Error: stray throw");
  }, 120_000);
});
