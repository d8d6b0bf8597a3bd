// The instance's life and the CLI calls behind it, checked on the fake CLI's log: secure flags at
// start, --cleanenv on every exec, stop on close (and not for an instance we did not start), and
// clear errors for a missing CLI, a bad image and an instance that goes away mid-run.
import { callsFor, cliCalls, FAKE_IMAGE, fakeState } from "../fake-cli.js";
import { execFileSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { executeCode } from "@codecall/core";
import { createTransport } from "@codecall/transport-stream";
import { createEnvironment, SingularityEnvironment } from "../../src/index.js";

/** Pids of live processes that the fake CLI started inside `instance`. */
function processesIn(instance: string): number[] {
  return readdirSync("/proc")
    .filter((entry) => /^\d+$/.test(entry))
    .filter((pid) => {
      try {
        return readFileSync(`/proc/${pid}/environ`, "latin1").split("\0").includes(`FAKE_APPTAINER_INSTANCE=${instance}`);
      } catch {
        return false;
      }
    })
    .map(Number);
}

const instanceExists = (name: string) => existsSync(path.join(fakeState, "instances", `${name}.json`));
const apptainer = (...args: string[]) => execFileSync("apptainer", args, { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });

describe("singularity instances", () => {
  it("starts the instance with secure flags, runs every exec with --cleanenv, and stops it on close", async () => {
    const environment = await createEnvironment({ image: FAKE_IMAGE, binds: ["/srv:/srv:ro"], startArgs: ["--nv"], name: "codecall-flags-test" });
    const running = environment.execute("sleep 30");
    running.catch(() => {}); // close() ends it
    // The command itself runs (not only the agent that runs it).
    const sleeping = () => processesIn("codecall-flags-test").filter((pid) => readFileSync(`/proc/${pid}/cmdline`, "latin1").startsWith("sleep\0"));
    await expect.poll(() => sleeping().length, { timeout: 60_000 }).toBeGreaterThan(0);
    await environment.close();
    await running.catch(() => {});

    const calls = callsFor("codecall-flags-test");
    expect(calls[0]).toEqual([
      "instance",
      "start",
      "--containall",
      "--writable-tmpfs",
      "--bind",
      "/srv:/srv:ro",
      "--nv",
      FAKE_IMAGE,
      "codecall-flags-test",
    ]);
    const execs = calls.filter((argv) => argv[0] === "exec");
    expect(execs.length).toBeGreaterThan(1);
    for (const argv of execs) expect(argv.slice(0, 3)).toEqual(["exec", "--cleanenv", "instance://codecall-flags-test"]);
    expect(calls.at(-1)).toEqual(["instance", "stop", "codecall-flags-test"]);
    expect(instanceExists("codecall-flags-test")).toBe(false);
    expect(processesIn("codecall-flags-test")).toEqual([]);
  });

  it("keeps the host's environment out of the instance", async () => {
    process.env.CODECALL_HOST_ONLY_SECRET = "host-secret-4f1c";
    try {
      await using environment = await createEnvironment({ image: FAKE_IMAGE, env: { FROM_OPTION: "yes" } });
      const env = (await environment.execute("env")).stdout;
      expect(env).not.toContain("host-secret-4f1c");
      expect(env).toContain("FROM_OPTION=yes");
    } finally {
      delete process.env.CODECALL_HOST_ONLY_SECRET;
    }
  });

  it("uses a running instance as given and leaves it running on close", async () => {
    apptainer("instance", "start", FAKE_IMAGE, "codecall-attached-test");
    try {
      const environment = await createEnvironment({ instance: "codecall-attached-test", workdir: "/tmp" });
      expect((await environment.execute("pwd")).stdout).toBe("/tmp\n");
      await environment.close();
      expect(
        callsFor("codecall-attached-test")
          .filter((argv) => argv[0] === "instance")
          .map((argv) => argv[1]),
      ).toEqual(["start"]);
      expect(instanceExists("codecall-attached-test")).toBe(true);
    } finally {
      apptainer("instance", "stop", "codecall-attached-test");
    }
  });

  it("says which CLI is missing", async () => {
    await expect(createEnvironment({ image: FAKE_IMAGE, binary: "/nowhere/apptainer" })).rejects.toThrow(
      'The singularity backend\'s binary "/nowhere/apptainer" was not found (not on PATH and not an executable path)',
    );
    const before = cliCalls().length;
    await expect(createEnvironment({ image: FAKE_IMAGE, binary: "apptainer-not-installed" })).rejects.toThrow(
      /"apptainer-not-installed" was not found/,
    );
    expect(cliCalls().length).toBe(before);
  });

  it("reports a bad image with the CLI's own message, leaving nothing behind", async () => {
    await expect(createEnvironment({ image: "/nowhere/python.sif", name: "codecall-bad-image" })).rejects.toThrow(
      /instance start failed \(exit 255\): FATAL: +could not open image \/nowhere\/python\.sif/,
    );
    expect(instanceExists("codecall-bad-image")).toBe(false);
  });

  it("refuses an instance that is not running, naming it", async () => {
    await expect(createEnvironment({ instance: "codecall-no-such-instance" })).rejects.toThrow(
      /The instance codecall-no-such-instance cannot run commands .*no instance found with name codecall-no-such-instance/,
    );
  });

  it("gives a clear error, keeping the partial output, when the instance is stopped mid-run", async () => {
    await using environment = await createEnvironment({ image: FAKE_IMAGE });
    let stopped = false;
    const result = await executeCode({
      code: 'import time\nprint("started", flush=True)\ntime.sleep(60)\nprint("not reached")',
      environment,
      transport: createTransport(),
      limits: { timeoutMs: 120_000 },
      onStdout: (chunk) => {
        if (!stopped && new TextDecoder().decode(chunk).includes("started")) {
          stopped = true;
          apptainer("instance", "stop", environment.instanceName);
        }
      },
    });
    expect(stopped).toBe(true);
    expect(result.status).toBe("error");
    expect(result.output).toMatch(/^started\n/);
    expect(result.error).toMatch(new RegExp(`the instance ${environment.instanceName} is gone \\(stopped or crashed\\)`));
  });

  it("does not start anything before first use when constructed directly", async () => {
    const before = cliCalls().length;
    const environment = new SingularityEnvironment({ image: FAKE_IMAGE });
    expect(cliCalls().length).toBe(before);
    await environment.close();
    await expect(environment.start()).rejects.toThrow("This singularity environment is closed");
  });
});
