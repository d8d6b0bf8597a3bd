// The file client's own tests, in Python (python/test_*.py), run against src/guest/file_client.py
// and core's guest runtime as a run gets it.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll } from "vitest";
import { describePythonTests } from "@codecall/conformance";
import { pythonGuestFiles } from "@codecall/core/protocol";

const runtimeDir = mkdtempSync(join(tmpdir(), "codecall-runtime-"));
afterAll(() => rmSync(runtimeDir, { recursive: true, force: true }));
for (const file of pythonGuestFiles({ tools: [], clientSource: "" })) writeFileSync(join(runtimeDir, file.name), file.data);

describePythonTests({
  title: "the Python file client, run by python3",
  testDir: fileURLToPath(new URL("python/", import.meta.url)),
  pythonPath: [runtimeDir, fileURLToPath(new URL("../src/guest/", import.meta.url))],
});
