import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { environmentOptions as dockerOptions } from "@codecall/backend-docker";
import { environmentOptions as localOptions } from "@codecall/backend-local";
import { runCli } from "./support.js";

describe("codecall run: backend options", () => {
  let dir: string;

  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), "codecall-cli-options-"));
  });

  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it("lists a backend's declared options with --backend NAME --help", async () => {
    const result = await runCli(["run", "--backend", "docker", "--help"]);
    expect(result).toMatchObject({ code: 0, stderr: "" });
    expect(result.stdout).toContain("codecall run FILE|-");
    expect(result.stdout).toContain("Options of the docker backend (@codecall/backend-docker)");
    expect(result.stdout).toContain(dockerOptions.help());
    expect(result.stdout).toMatch(/\n {2}pidsLimit +integer +512 +processes in the container/);
  });

  it("lists the local backend's options with a plain run --help, and takes the backend from a config file", async () => {
    const plain = await runCli(["run", "-h"]);
    expect(plain.code).toBe(0);
    expect(plain.stdout).toContain(`Options of the local backend (@codecall/backend-local)`);
    expect(plain.stdout).toContain(localOptions.help());
    await writeFile(path.join(dir, "docker.json"), JSON.stringify({ backend: "docker" }));
    const fromFile = await runCli(["run", "--config", "docker.json", "--help"], { cwd: dir });
    expect(fromFile.stdout).toContain("Options of the docker backend");
  });

  it("says so for a backend that declares no options", async () => {
    await writeFile(path.join(dir, "bare-backend.mjs"), "export function createEnvironment() { throw new Error('not used'); }\n");
    const result = await runCli(["run", "--backend", "./bare-backend.mjs", "--help"], { cwd: dir });
    expect(result.code).toBe(0);
    expect(result.stdout).toContain("./bare-backend.mjs does not declare its options (it exports no environmentOptions)");
  });

  it("refuses an option the local backend does not have, naming the closest one, before anything runs", async () => {
    const unknown = await runCli(["run", "-o", "foo=bar", "-"], { stdin: "print(1)\n" });
    expect(unknown).toMatchObject({ code: 2, stdout: "", stderr: 'codecall: Unknown local option "foo". Known: cwd, env, shell, tempRoot\n' });
    const typo = await runCli(["run", "-o", "cwdd=/tmp", "-"], { stdin: "print(1)\n" });
    expect(typo).toMatchObject({ code: 2, stderr: 'codecall: Unknown local option "cwdd". Did you mean "cwd"? Known: cwd, env, shell, tempRoot\n' });
  });

  it("refuses an unknown option from a config file's backendOptions the same way", async () => {
    await writeFile(path.join(dir, "typo.json"), JSON.stringify({ backendOptions: { shel: "/bin/sh" } }));
    const result = await runCli(["run", "--config", "typo.json", "-"], { cwd: dir, stdin: "print(1)\n" });
    expect(result).toMatchObject({
      code: 2,
      stderr: 'codecall: Unknown local option "shel". Did you mean "shell"? Known: cwd, env, shell, tempRoot\n',
    });
  });

  it("reads -o values by the declared type: a numeric string stays a string", async () => {
    await mkdir(path.join(dir, "0123"));
    // Typed by its look, "0123" would become the number 123 and name another directory.
    const result = await runCli(["run", "-o", "cwd=0123", "-"], { cwd: dir, stdin: "import os\nprint(os.path.basename(os.getcwd()))\n" });
    expect(result).toMatchObject({ code: 0, stdout: "0123\n" });
  });
});
