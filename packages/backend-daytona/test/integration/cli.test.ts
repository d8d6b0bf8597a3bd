// `codecall run --backend daytona` through the built CLI, from this package's directory (where the
// resolver finds this backend by self-reference and the transports as dev dependencies), against
// the fake Daytona served by this test process.
import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterAll, expect, it } from "vitest";
import { describeIntegration } from "@codecall/conformance";
import { environmentOptions } from "../../src/index.js";
import { FakeDaytona } from "../fake-daytona/fake-daytona.js";

const packageDir = fileURLToPath(new URL("../..", import.meta.url));
const cliBin = path.join(packageDir, "../cli/dist/bin.cjs");
const fake = await FakeDaytona.start();
afterAll(() => fake.close());

async function codecall(args: string[], script = ""): Promise<{ code: number; stdout: string; stderr: string }> {
  // No DAYTONA_* from the developer's shell: the -o options are all the CLI gets.
  const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith("DAYTONA_")));
  const child = promisify(execFile)(process.execPath, [cliBin, "run", ...args], { cwd: packageDir, timeout: 60_000, env });
  child.child.stdin!.end(script);
  return child.then(
    ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
    (error: { code: number; stdout: string; stderr: string }) => ({ code: error.code, stdout: error.stdout, stderr: error.stderr }),
  );
}

const connection = () => ["-o", `apiKey=${fake.apiKey}`, "-o", `apiUrl=${fake.apiUrl}`, "-o", "target=fake"];

describeIntegration("codecall run --backend daytona", existsSync(cliBin) ? undefined : `the CLI is not built (${cliBin}); run pnpm build`, () => {
  it("runs the script in a new sandbox with options from -o flags, over the stream transport, and deletes the sandbox", async () => {
    const before = new Set(fake.sandboxes.keys());
    const run = await codecall(
      [...connection(), "--backend", "daytona", "-o", "workdir=/tmp", "-o", "labels.team=agents", "--json", "-"],
      'import os\nfrom codecall import terminal\nprint(os.getcwd(), terminal("pwd")["output"].strip())\n',
    );
    expect(run.stderr).toBe("");
    expect(JSON.parse(run.stdout)).toMatchObject({
      status: "success",
      output: "/tmp /tmp\n",
      toolCallsMade: 1,
      backend: "daytona",
      transport: "stream",
    });
    expect(run.code).toBe(0);
    const created = fake.requests.filter((request) => request.method === "POST" && request.path === "/api/sandbox");
    expect(created.length).toBeGreaterThan(0);
    expect([...fake.sandboxes.keys()].filter((id) => !before.has(id))).toEqual([]);
  });

  it("prints the backend's options with --help, the API key's value never", async () => {
    const run = await codecall(["--backend", "daytona", "-o", "apiKey=dtn_do_not_print", "--help"]);
    expect(run.code).toBe(0);
    for (const option of environmentOptions.describe()) expect(run.stdout).toContain(option.name);
    expect(run.stdout).not.toContain("dtn_do_not_print");
  });

  it("refuses an unknown option, naming it", async () => {
    const run = await codecall(["--backend", "daytona", "-o", "imgae=python:3.12", "-"], "print(1)\n");
    expect(run.code).not.toBe(0);
    expect(run.stderr).toMatch(/Unknown daytona option "imgae"/);
  });

  it("reports a refused API key without printing it", async () => {
    const run = await codecall(
      ["--backend", "daytona", "-o", "apiKey=dtn_wrong_key", "-o", `apiUrl=${fake.apiUrl}`, "-o", "target=fake", "-"],
      "print(1)\n",
    );
    expect(run.code).not.toBe(0);
    expect(run.stderr).toMatch(/the Daytona API refused the credentials \(401\)/);
    expect(run.stderr).not.toContain("dtn_wrong_key");
  });
});
