// `codecall run --backend modal` through the built CLI, from this package's directory (where the
// resolver finds this backend by self-reference and the transports as dev dependencies), with the
// fake server's address and credentials in the CLI's environment.
import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterAll, expect, it } from "vitest";
import { describeIntegration } from "@codecall/conformance";
import { createEnvironment } from "../../src/index.js";
import { FakeModal } from "../fake-modal.js";
import { WHERE_SCRIPT_AND_TOOL_RUN } from "../sandbox-of-process.js";

const packageDir = fileURLToPath(new URL("../..", import.meta.url));
const cliBin = path.join(packageDir, "../cli/dist/bin.cjs");

const fake = (await FakeModal.start()).use();
afterAll(() => fake.stop());

async function codecall(
  args: string[],
  script: string,
  env: NodeJS.ProcessEnv = process.env,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = promisify(execFile)(process.execPath, [cliBin, "run", ...args, "-"], { cwd: packageDir, timeout: 60_000, env });
  child.child.stdin!.end(script);
  return child.then(
    ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
    (error: { code: number | null; stdout: string; stderr: string }) => ({ code: error.code, stdout: error.stdout, stderr: error.stderr }),
  );
}

describeIntegration("codecall run --backend modal", existsSync(cliBin) ? undefined : `the CLI is not built (${cliBin}); run pnpm build`, () => {
  it("runs the script in a sandbox it terminates afterwards, over the stream transport, and exits", async () => {
    const terminations = fake.calls("SandboxTerminateV2").length;
    const run = await codecall(
      ["--backend", "modal", "-o", "image=python:3.12-slim", "-o", "lifetimeMs=600000", "-o", "tags.run=cli", "--json"],
      WHERE_SCRIPT_AND_TOOL_RUN,
    );
    // Nothing on stderr: the SDK's own console warnings go to debug lines.
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);
    const created = fake.calls("SandboxCreateV2").at(-1)!.request;
    expect(created).toMatchObject({ definition: { timeout_secs: 600 } });
    expect(created.tags).toContainEqual({ tag_name: "run", tag_value: "cli" });
    const ended = fake.calls("SandboxTerminateV2").slice(terminations);
    expect(ended.length).toBe(1);
    const id = ended[0]!.request.sandbox_id as string;
    expect(JSON.parse(run.stdout)).toMatchObject({
      status: "success",
      output: `${id}\n${id}\n`,
      toolCallsMade: 1,
      backend: "modal",
      transport: "stream",
    });
  });

  it("attaches to a running sandbox with -o sandboxId and leaves it running", async () => {
    await using owner = await createEnvironment();
    const run = await codecall(["--backend", "modal", "-o", `sandboxId=${owner.sandboxId}`], WHERE_SCRIPT_AND_TOOL_RUN);
    expect(run).toMatchObject({ code: 0, stdout: `${owner.sandboxId}\n${owner.sandboxId}\n` });
    expect((await owner.execute("echo alive")).stdout).toBe("alive\n");
  });

  it("lists the backend's options with --help", async () => {
    const run = await codecall(["--backend", "modal", "--help"], "");
    expect(run.code).toBe(0);
    expect(run.stdout).toContain("Options of the modal backend (@codecall/backend-modal)");
    for (const option of ["lifetimeMs", "sandboxId", "sandboxName", "blockNetwork", "tokenSecret"]) expect(run.stdout).toContain(option);
  });

  it("refuses an unknown option, naming it (exit 2)", async () => {
    const run = await codecall(["--backend", "modal", "-o", "imgae=python:3.12-slim"], "print(1)\n");
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/Unknown modal option "imgae"/);
  });

  it("says where credentials come from when there are none (exit 1)", async () => {
    const env = { ...process.env };
    delete env.MODAL_TOKEN_ID;
    delete env.MODAL_TOKEN_SECRET;
    const run = await codecall(["--backend", "modal"], "print(1)\n", env);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/^codecall: modal: no Modal credentials found\. Give them through MODAL_TOKEN_ID and MODAL_TOKEN_SECRET/);
  });
});
