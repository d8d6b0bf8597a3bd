// Core's generic ExecEnvironment (what exec-API backends such as docker and ssh build on), driven
// through the plainest real exec primitive there is — a local process started from an argv — so
// its semantics are proven by the full conformance suite without any service, through the
// environment agent and as plain execs under the remote wrapper.
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { CodecallError } from "@codecall/core";
import { ExecEnvironment, type StartExec } from "@codecall/core/backend-kit";
import { describeEnvironment } from "@codecall/conformance";
import { expect, it } from "vitest";
import { startLocalExec } from "./local-exec.js";

for (const agent of [false, true]) {
  describeEnvironment({
    name: `ExecEnvironment over local argv exec (${agent ? "through the agent" : "plain execs"})`,
    create: () =>
      new ExecEnvironment({ backendId: "exec-local", capabilities: { hostSockets: false, streamingStdio: true }, start: startLocalExec, agent }),
    capabilities: { hostSockets: false, streamingStdio: true },
  });
}

it("refuses a helper command's output over its bound instead of holding it (a replaced env)", async () => {
  const dir = await mkdtemp(path.join(tmpdir(), "codecall-fake-env-"));
  try {
    // An `env` a script put first on PATH, printing 64 MB where an environment block is expected.
    await writeFile(path.join(dir, "env"), "#!/bin/sh\nexec head -c 67108864 /dev/zero\n", { mode: 0o755 });
    const fake: StartExec = ({ argv, ...rest }) => startLocalExec({ ...rest, argv: ["env", `PATH=${dir}:${process.env.PATH}`, ...argv] });
    const environment = new ExecEnvironment({ backendId: "exec-local", capabilities: { hostSockets: false, streamingStdio: true }, start: fake });
    const error = await environment.defaultEnv().catch((caught: unknown) => caught);
    expect(CodecallError.isInstance(error, "ENVIRONMENT_FAILED")).toBe(true);
    await environment.close();
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
