/**
 * During a run, tools get core's ScopedEnvironment: the run's scrubbed env and working
 * directory. These cases check the tools leave path resolution to it and use it for commands.
 */
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { createEnvironment, type LocalEnvironment } from "@codecall/backend-local";
import { scrubEnv } from "@codecall/core";
import { ScopedEnvironment } from "@codecall/core/plugin-kit";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { patchTool, readFileTool, searchFilesTool, terminalTool, writeFileTool } from "../src/index.js";
import { contextFor } from "./support.js";

describe("tools on a ScopedEnvironment", () => {
  let elsewhere: string;
  let runDir: string;
  let inner: LocalEnvironment;
  let scoped: ScopedEnvironment;
  const secret = "ghp_scopedSecretValue0123456789";

  beforeEach(async () => {
    elsewhere = await mkdtemp(path.join(tmpdir(), "codecall-tools-other-"));
    runDir = await mkdtemp(path.join(tmpdir(), "codecall-tools-run-"));
    // The real environment's own cwd is elsewhere: only the scope makes relative paths land in runDir.
    inner = createEnvironment({ cwd: elsewhere, env: { ...process.env, GITHUB_TOKEN: secret } });
    scoped = new ScopedEnvironment(inner, { env: scrubEnv(await inner.defaultEnv()).env, cwd: runDir });
  });

  afterEach(async () => {
    await inner.close();
    await rm(elsewhere, { recursive: true, force: true });
    await rm(runDir, { recursive: true, force: true });
  });

  it("resolve relative paths against the run's directory", async () => {
    const context = contextFor(scoped);
    await writeFileTool.execute({ path: "pkg/mod.py", content: "VALUE = 1\n" }, context);
    expect((await readFileTool.execute({ path: "pkg/mod.py" }, context)).content).toBe("     1|VALUE = 1");
    await patchTool.execute({ path: "pkg/mod.py", old_string: "1", new_string: "2" }, context);
    expect((await terminalTool.execute({ command: "cat pkg/mod.py" }, context)).output).toBe("VALUE = 2\n");
    expect((await searchFilesTool.execute({ pattern: "VALUE" }, context)).matches).toEqual([{ path: "pkg/mod.py", line: 1, text: "VALUE = 2" }]);
    expect((await searchFilesTool.execute({ pattern: "*.py", target: "files" }, context)).files).toEqual(["pkg/mod.py"]);
    expect((await terminalTool.execute({ command: "ls", workdir: "pkg" }, context)).output).toBe("mod.py\n");
  });

  it("find nothing of the run in the real environment's own directory", async () => {
    await mkdir(path.join(elsewhere, "pkg"));
    await writeFile(path.join(elsewhere, "pkg/mod.py"), "OTHER\n");
    const context = contextFor(scoped);
    await expect(readFileTool.execute({ path: "pkg/mod.py" }, context)).rejects.toThrow("File not found: pkg/mod.py");
    expect((await searchFilesTool.execute({ pattern: "OTHER" }, context)).total).toBe(0);
  });

  it("give commands the scrubbed env only", async () => {
    const output = (await terminalTool.execute({ command: 'env; echo "token=[$GITHUB_TOKEN]"' }, contextFor(scoped))).output;
    expect(output).toContain("token=[]");
    expect(output).not.toContain(secret);
    // Control: without the scope the secret is visible.
    expect((await terminalTool.execute({ command: "echo $GITHUB_TOKEN" }, contextFor(inner))).output).toBe(`${secret}\n`);
  });
});
