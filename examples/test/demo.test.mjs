// The README's demo must work under both runtimes codecall supports: Node and Deno (the `deno`
// npm package). Each run is a real end-to-end execution: a Python script, concurrent tool calls
// over the UDS transport, files written by tools.
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const demo = fileURLToPath(new URL("../demo.mjs", import.meta.url));
const deno = fileURLToPath(new URL("../node_modules/.bin/deno", import.meta.url));

function expectDemoOutput(run) {
  expect(run.stderr).toBe("");
  expect(run.status).toBe(0);
  expect(run.stdout).toMatch(/^--- what the script printed \(all the model sees\) ---\n8 forecasts in \d+\.\d\ds/);
  expect(run.stdout).toContain("wrote 8 files; rain expected in: cairo\n");
  expect(run.stdout).toContain("warmest tomorrow: Lima at 25C\n");
  expect(run.stdout).toMatch(/status=success toolCalls=18 duration=[\d.]+s backend=local transport=uds\n$/);
}

describe("demo", () => {
  it("runs under Node", () => {
    expectDemoOutput(spawnSync(process.execPath, [demo], { encoding: "utf8", timeout: 60_000 }));
  }, 70_000);

  it("runs under Deno", () => {
    const run = spawnSync(deno, ["run", "--allow-all", demo], {
      encoding: "utf8",
      timeout: 60_000,
      env: { ...process.env, DENO_NO_UPDATE_CHECK: "1" },
    });
    expectDemoOutput(run);
  }, 70_000);
});
