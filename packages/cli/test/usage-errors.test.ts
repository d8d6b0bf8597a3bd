import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { parseBackendOptions } from "../src/backend-options.js";
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

  it("refuses a script that is not UTF-8 instead of running other text (U+FFFD) in its place", async () => {
    const dir = await mkdtemp(path.join(tmpdir(), "codecall-latin1-"));
    try {
      const file = path.join(dir, "latin1.py");
      // Latin-1 é: a byte UTF-8 cannot decode.
      await writeFile(file, Buffer.from('# -*- coding: latin-1 -*-\nprint("caf\xe9")\n', "latin1"));
      const result = await runCli(["run", file]);
      expect(result).toMatchObject({ code: 1, stdout: "" });
      expect(result.stderr).toBe(
        `codecall: The script ${file} is not UTF-8 text; codecall runs scripts as UTF-8. Convert it first, e.g. iconv -f latin1 -t utf-8 (and drop a coding: line that names another encoding).\n`,
      );
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it.each([
    [
      ["--allow-tools", "read_file,raed_file"],
      "--allow-tools names unknown tools: raed_file (did you mean read_file?). Tools: patch, read_file, search_files, terminal, write_file",
    ],
    [["--cwd", ""], "--cwd wants a directory, got an empty string"],
    [["--interpreter", " "], "--interpreter wants a Python command, got an empty string"],
    [
      ["--env-passthrough", "API_KEY=x"],
      '--env-passthrough wants a variable name (letters, digits and _, not starting with a digit), got "API_KEY=x"',
    ],
    [["--env-passthrough", ""], '--env-passthrough wants a variable name (letters, digits and _, not starting with a digit), got ""'],
  ])("refuses %j, which would otherwise mean nothing without a word", async (flags, message) => {
    const result = await runCli(["run", "-", ...flags], { stdin: "print(1)" });
    expect(result).toMatchObject({ code: 2, stdout: "", stderr: `codecall: ${message}\n` });
  });

  // An unknown name or a plugin that is not installed is a bad command line (exit 2, as the
  // READMEs and --help say), not a failed run (1).
  it("lists the backends when one is unknown", async () => {
    const result = await runCli(["run", "--backend", "nope", "-"], { stdin: "print(1)" });
    expect(result.code).toBe(2);
    expect(result.stderr).toBe(
      'codecall: Unknown backend "nope". Choose one of: local, docker, ssh, modal, daytona, singularity, apptainer (or give a package name)\n',
    );
  });

  it("says which package to install for a backend that is not installed", async () => {
    // Resolved from a directory with no packages, without NODE_PATH: pnpm sets it to the hoisted
    // store when it runs the tests, where every workspace package (this backend among them) is
    // found. So the package is missing for real, as it is for a user who did not install it.
    const cwd = await mkdtemp(path.join(tmpdir(), "codecall-no-backend-"));
    const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => name !== "NODE_PATH"));
    const result = await runCli(["run", "--backend", "daytona", "-"], { stdin: "print(1)", cwd, env }).finally(() => rm(cwd, { recursive: true }));
    expect(result.code).toBe(2);
    expect(result.stderr).toBe(
      "codecall: The daytona backend needs the package @codecall/backend-daytona, which is not installed. Install it: npm install @codecall/backend-daytona\n",
    );
  });

  it("rejects unknown flags and bad values with exit code 2", async () => {
    expect((await runCli(["run", "--bogus", "x.py"])).code).toBe(2);
    const timeout = await runCli(["run", "--timeout", "soon", "x.py"]);
    expect(timeout).toMatchObject({ code: 2, stderr: "codecall: --timeout wants a number of seconds from 0.001 to 31536000 (365 days), got soon\n" });
    expect((await runCli(["run", "a.py", "b.py"])).code).toBe(2);
    expect((await runCli(["launch"])).stderr).toContain('Unknown command "launch"');
  });

  it("exits 2 for an unknown transport, a transport package that is not installed, and a backend package given by name", async () => {
    for (const args of [
      ["--transport", "nope"],
      ["--transport", "@example/no-such-transport"],
      ["--backend", "@example/no-such-backend"],
    ]) {
      const result = await runCli(["run", ...args, "-"], { stdin: "print(1)" });
      expect(result.code, args.join(" ")).toBe(2);
      expect(result.stderr, args.join(" ")).toMatch(
        /^codecall: (Unknown transport "nope"|The @example\/no-such-\w+ \w+ needs the package @example\/no-such-\w+, which is not installed)/,
      );
    }
  });

  it.each(["0", "-5", "NaN", "Infinity", "abc", "", " ", "0x10", "1e300", "0.0001", "31536001"])(
    "refuses --timeout=%j with a usage error",
    async (value) => {
      const result = await runCli(["run", `--timeout=${value}`, "-"], { stdin: "print(1)" });
      expect(result.code).toBe(2);
      expect(result.stderr).toBe(`codecall: --timeout wants a number of seconds from 0.001 to 31536000 (365 days), got ${value}\n`);
    },
  );

  it.each([
    [true, "true"],
    ["", ""],
    [[5], "[5]"],
    [-1, "-1"],
  ])("refuses a timeout of %j in the config file", async (timeout, shown) => {
    const dir = await mkdtemp(path.join(tmpdir(), "codecall-cli-config-"));
    try {
      await writeFile(path.join(dir, "codecall.json"), JSON.stringify({ timeout }));
      const result = await runCli(["run", "--config", "codecall.json", "-"], { cwd: dir, stdin: "print(1)" });
      expect(result.code).toBe(2);
      expect(result.stderr).toBe(`codecall: --timeout wants a number of seconds from 0.001 to 31536000 (365 days), got ${shown}\n`);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it.each([
    ["allowTools", { read_file: true }],
    ["allowTools", null],
    ["allowTools", 5],
    ["requireApproval", [1, {}]],
    ["requireApproval", null],
  ])("refuses a config file whose %s is %j, naming the file and the key (not a tool called [object Object])", async (key, value) => {
    const dir = await mkdtemp(path.join(tmpdir(), "codecall-cli-config-"));
    try {
      await writeFile(path.join(dir, "codecall.json"), JSON.stringify({ [key]: value }));
      const result = await runCli(["run", "--config", "codecall.json", "-"], { cwd: dir, stdin: "print(1)" });
      expect(result.code).toBe(2);
      expect(result.stderr).toBe(
        `codecall: ${path.join(dir, "codecall.json")}: ${JSON.stringify(key)} must be a string or string list, got ${JSON.stringify(value)}\n`,
      );
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
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
