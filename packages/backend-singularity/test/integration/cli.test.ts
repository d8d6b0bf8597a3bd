// `codecall run --backend apptainer` through the built CLI, from this package's directory (where
// the resolver finds this backend by self-reference and the transports as dev dependencies), with
// the fake CLI on PATH.
import { FAKE_IMAGE } from "../fake-cli.js";
import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { expect, it } from "vitest";
import { describeIntegration } from "@codecall/conformance";

const packageDir = fileURLToPath(new URL("../..", import.meta.url));
const cliBin = path.join(packageDir, "../cli/dist/bin.cjs");

async function codecall(args: string[], script: string): Promise<{ code: number; stdout: string; stderr: string }> {
  const child = promisify(execFile)(process.execPath, [cliBin, "run", ...args, "-"], { cwd: packageDir, timeout: 60_000 });
  child.child.stdin!.end(script);
  return child.then(
    ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
    (error: { code: number; stdout: string; stderr: string }) => ({ code: error.code, stdout: error.stdout, stderr: error.stderr }),
  );
}

describeIntegration("codecall run --backend apptainer", existsSync(cliBin) ? undefined : `the CLI is not built (${cliBin}); run pnpm build`, () => {
  it("runs the script in an instance with options from -o flags, over the stream transport", async () => {
    const run = await codecall(
      ["--backend", "apptainer", "-o", `image=${FAKE_IMAGE}`, "-o", "workdir=/tmp", "-o", "binds=/srv:/srv:ro", "--json"],
      'import os\nfrom codecall import terminal\nprint(os.getcwd(), terminal("pwd")["output"].strip())\n',
    );
    expect(run.stderr).toBe("");
    expect(JSON.parse(run.stdout)).toMatchObject({
      status: "success",
      output: "/tmp /tmp\n",
      toolCallsMade: 1,
      backend: "singularity",
      transport: "stream",
    });
    expect(run.code).toBe(0);
  });

  it("refuses an unknown option, naming it", async () => {
    const run = await codecall(["--backend", "singularity", "-o", `imgae=${FAKE_IMAGE}`], "print(1)\n");
    expect(run.code).not.toBe(0);
    expect(run.stderr).toMatch(/Unknown singularity option "imgae"/);
  });
});
