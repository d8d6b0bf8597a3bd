#!/usr/bin/env node
// `pnpm lint:python`: pyright over the guest Python (pyrightconfig.json: the runtime, the clients,
// the relay, the launcher and their tests), then over the guest exactly as a run gets it: the
// modules pythonGuestFiles() gives for the built-in tools and the socket client, generated into a
// temporary dir, so the code the stub generator writes is checked too. Needs the packages built.
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));
const pyright = join(root, "node_modules/pyright/index.js");
const { PYTHON_SOCKET_CLIENT, pythonGuestFiles } = await import(join(root, "packages/core/dist/protocol.js"));
const { builtinTools } = await import(join(root, "packages/tools/dist/index.js"));

function check(args, cwd) {
  const result = spawnSync(process.execPath, [pyright, ...args], { cwd, stdio: "inherit" });
  if (result.status !== 0) process.exit(result.status ?? 1);
}

check([], root);
const generated = mkdtempSync(join(tmpdir(), "codecall-pyright-"));
try {
  for (const file of pythonGuestFiles({ tools: builtinTools, clientSource: PYTHON_SOCKET_CLIENT }))
    writeFileSync(join(generated, file.name), file.data);
  writeFileSync(join(generated, "pyrightconfig.json"), JSON.stringify({ pythonVersion: "3.8", typeCheckingMode: "basic" }));
  check([], generated);
} finally {
  rmSync(generated, { recursive: true, force: true });
}
