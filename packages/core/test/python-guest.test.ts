import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { CodecallError } from "../src/errors.js";
import { pythonGuestFiles } from "../src/guest/python-guest.js";
import { generatePythonModule } from "../src/guest/python-stub.js";
import { PYTHON_SOCKET_CLIENT } from "../src/guest/socket-client.js";
import type { ToolDefinition } from "../src/tool.js";

const echo: ToolDefinition = {
  name: "echo",
  description: "Returns its text.",
  parameters: { type: "object", properties: { text: { type: "string" } }, required: ["text"] },
  execute: ({ text }: { text: string }) => text,
};
const source = (file: string) => readFileSync(new URL(`../src/guest/python/${file}`, import.meta.url), "utf8");

const dir = mkdtempSync(join(tmpdir(), "codecall-guest-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("pythonGuestFiles", () => {
  it("gives the tools module, the runtime and the transport's client, each as it is", () => {
    expect(pythonGuestFiles({ tools: [echo], clientSource: PYTHON_SOCKET_CLIENT, moduleName: "tools" })).toEqual([
      { name: "tools.py", data: generatePythonModule({ tools: [echo], moduleName: "tools" }) },
      { name: "_codecall_calls.py", data: source("_codecall_calls.py") },
      { name: "_codecall_protocol.py", data: source("_codecall_protocol.py") },
      { name: "_codecall_client.py", data: source("socket_client.py") },
      { name: "sitecustomize.py", data: source("sitecustomize.py") },
    ]);
  });

  it("makes modules that stand on their own: outside a run a call raises codecall.ToolError", () => {
    for (const file of pythonGuestFiles({ tools: [echo], clientSource: PYTHON_SOCKET_CLIENT })) writeFileSync(join(dir, file.name), file.data);
    writeFileSync(join(dir, "script.py"), "from codecall import echo\necho('hi')\n");
    // -S and no PYTHONPATH: nothing but the script's dir and the standard library to import from.
    const run = spawnSync("python3", ["-B", "-S", "script.py"], { cwd: dir, encoding: "utf8", env: { PATH: process.env.PATH } });
    expect(run.status).toBe(1);
    expect(run.stderr).toMatch(/codecall\.py", line \d+, in echo\n\s+return _codecall_call\("echo", \{"text": text\}\)\n/);
    expect(run.stderr.trimEnd().split("\n").at(-1)).toBe(
      "codecall.ToolError: echo: CODECALL_RPC_SOCKET is not set: this module only works inside a codecall run",
    );
  });

  it.each(["_codecall_protocol", "_codecall_calls", "_codecall_client", "sitecustomize", "script"])(
    "refuses the module name %s, which the run's files take",
    (moduleName) => {
      let caught: unknown;
      try {
        pythonGuestFiles({ tools: [], clientSource: "", moduleName });
      } catch (error) {
        caught = error;
      }
      expect(CodecallError.isInstance(caught, "INVALID_OPTIONS")).toBe(true);
      expect((caught as Error).message).toBe(
        `moduleName "${moduleName}" is taken by the run's own files (_codecall_protocol, _codecall_calls, _codecall_client, sitecustomize, script)`,
      );
    },
  );

  it("refuses a module name Python cannot import", () => {
    expect(() => pythonGuestFiles({ tools: [], clientSource: "", moduleName: "my-tools" })).toThrow(/moduleName must be an ASCII Python identifier/);
  });
});
