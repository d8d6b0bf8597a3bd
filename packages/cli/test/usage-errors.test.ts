import { describe, expect, it } from "vitest";
import { parseBackendOptions } from "../src/run-config.js";
import { runCli } from "./support.js";

describe("codecall usage errors", () => {
  it("prints help and exits 0 with --help, 2 with no command", async () => {
    const help = await runCli(["--help"]);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain("codecall run FILE|-");
    expect((await runCli([])).code).toBe(2);
  });

  it("prints the version", async () => {
    const result = await runCli(["--version"]);
    expect(result.stdout).toMatch(/^\d+\.\d+\.\d+\n$/);
  });

  it("names a missing script file", async () => {
    const result = await runCli(["run", "/nonexistent/script.py"]);
    expect(result).toMatchObject({ code: 1, stdout: "", stderr: "codecall: Script not found: /nonexistent/script.py\n" });
  });

  it("lists the backends when one is unknown", async () => {
    const result = await runCli(["run", "--backend", "nope", "-"], { stdin: "print(1)" });
    expect(result.code).toBe(1);
    expect(result.stderr).toBe('codecall: Unknown backend "nope". Choose one of: local, docker, ssh, modal, daytona, singularity, apptainer (or give a package name)\n');
  });

  it("says which package to install for a backend that is not installed", async () => {
    const result = await runCli(["run", "--backend", "daytona", "-"], { stdin: "print(1)" });
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(
      "codecall: The daytona backend needs the package @codecall/backend-daytona, which is not installed. Install it: npm install @codecall/backend-daytona\n",
    );
  });

  it("rejects unknown flags and bad values with exit code 2", async () => {
    expect((await runCli(["run", "--bogus", "x.py"])).code).toBe(2);
    const timeout = await runCli(["run", "--timeout", "soon", "x.py"]);
    expect(timeout).toMatchObject({ code: 2, stderr: "codecall: --timeout wants a positive number of seconds, got soon\n" });
    expect((await runCli(["run", "a.py", "b.py"])).code).toBe(2);
    expect((await runCli(["launch"])).stderr).toContain('Unknown command "launch"');
  });

  it("parses backend options into typed, nested values", () => {
    expect(parseBackendOptions(["image=python:3.12", "memory=512", "readOnly=true", "limits.pids=64", 'mounts=["/a:/b"]', "name=a=b"])).toEqual({
      image: "python:3.12",
      memory: 512,
      readOnly: true,
      limits: { pids: 64 },
      mounts: ["/a:/b"],
      name: "a=b",
    });
    expect(() => parseBackendOptions(["novalue"])).toThrow("--backend-option wants KEY=VALUE");
  });
});
