// Sessions (issue 18): what a cell costs in a live kernel — `x += 1` from run() to its result —
// next to a no-op tool call's round trip on the same backend, a fresh executeCode of the same
// cell and a new session's first cell, on local (uds), Docker and SSH (stream, through the
// environment agent), and on Modal and Daytona against their tests' fakes (stream, both ways of
// each: fake-server numbers, codecall's and the SDK's overhead, not the cloud's). A backend whose
// service is not up is reported as skipped; the local rows always run.
import { spawnSync } from "node:child_process";
import { createEnvironment as createLocalEnvironment } from "@codecall/backend-local";
import { createTransport as createStreamTransport } from "@codecall/transport-stream";
import { createTransport as createUdsTransport } from "@codecall/transport-uds";
import { startFakeDaytona, startFakeModal } from "./fakes.mjs";
import { reportSessionRoundTrips, sshServerOptions } from "./lib.mjs";

// Locally the real interpreter, as local-uds.mjs does: python3 may be a slow shim (pyenv's).
const python = spawnSync("python3", ["-c", "import sys; print(sys.executable)"], { encoding: "utf8" }).stdout.trim();
const local = createLocalEnvironment();
await reportSessionRoundTrips({ backend: "local+uds", environment: local, transport: createUdsTransport(), interpreter: python });
await local.close();

const remotes = [
  {
    backend: "docker+stream",
    create: async () => {
      const { createEnvironment } = await import("@codecall/backend-docker");
      return createEnvironment({ image: process.env.CODECALL_DOCKER_IMAGE ?? "codecall-test-python:latest", engineTimeoutMs: 3_000 });
    },
  },
  {
    backend: "ssh+stream",
    create: async () => {
      const options = sshServerOptions();
      if (options === undefined) throw new Error("no SSH server configured (run scripts/ci/sshd.sh)");
      const { createEnvironment } = await import("@codecall/backend-ssh");
      return createEnvironment(options);
    },
  },
];

// Each fake is started by the first row that needs it, and stopped at the end.
const fakes = new Map();
const fake = (start) => {
  if (!fakes.has(start)) fakes.set(start, start());
  return fakes.get(start);
};
for (const agent of [true, false]) {
  remotes.push({
    backend: `modal (fake, ${agent ? "agent" : "plain execs"})+stream`,
    create: async () => {
      await fake(startFakeModal);
      const { createEnvironment } = await import("@codecall/backend-modal");
      return createEnvironment({ agent });
    },
  });
}
for (const agent of [false, true]) {
  remotes.push({
    backend: `daytona (fake, ${agent ? "agent" : "session commands"})+stream`,
    create: async () => {
      const { connection } = await fake(startFakeDaytona);
      const { createEnvironment } = await import("@codecall/backend-daytona");
      return createEnvironment({ ...connection, agent });
    },
  });
}

for (const { backend, create } of remotes) {
  let environment;
  try {
    environment = await create();
  } catch (error) {
    console.log(`${backend}: skipped: ${error.message}`);
    continue;
  }
  try {
    await reportSessionRoundTrips({ backend, environment, transport: createStreamTransport() });
  } finally {
    await environment.close();
  }
}
for (const started of fakes.values()) await (await started.catch(() => undefined))?.close();
