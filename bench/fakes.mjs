// The fake services of the Modal and Daytona tests, started for a benchmark: the real SDKs run
// against them on this machine. Numbers taken through them are fake-server numbers — codecall's
// and the SDK's overhead, not the cloud's network or scheduling.
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";

/**
 * Starts packages/backend-modal/test/fake-modal/server.mjs and points the SDK at it (credentials,
 * MODAL_SERVER_URL and no config file, in this process's env, which the SDK reads when imported).
 * Resolves to `{ close() }`; rejects when the server does not start.
 */
export async function startFakeModal() {
  const server = fileURLToPath(new URL("../packages/backend-modal/test/fake-modal/server.mjs", import.meta.url));
  const state = mkdtempSync(path.join(tmpdir(), "codecall-bench-modal-"));
  const credentials = { MODAL_TOKEN_ID: "ak-bench", MODAL_TOKEN_SECRET: "as-bench-secret" };
  const fake = spawn(process.execPath, [server], {
    env: {
      PATH: process.env.PATH,
      FAKE_MODAL_STATE: state,
      FAKE_MODAL_TOKEN_ID: credentials.MODAL_TOKEN_ID,
      FAKE_MODAL_TOKEN_SECRET: credentials.MODAL_TOKEN_SECRET,
      FAKE_MODAL_IMAGES: "python:3.13-slim",
    },
    stdio: ["pipe", "pipe", "inherit"],
  });
  const port = await new Promise((resolve, reject) => {
    fake.once("exit", () => reject(new Error("the fake Modal server did not start")));
    createInterface({ input: fake.stdout }).once("line", (line) => resolve(JSON.parse(line).port));
  });
  Object.assign(process.env, credentials, { MODAL_SERVER_URL: `http://127.0.0.1:${port}`, MODAL_CONFIG_PATH: path.join(state, "none.toml") });
  return {
    async close() {
      fake.stdin.end();
      await new Promise((resolve) => fake.once("exit", resolve));
      rmSync(state, { recursive: true, force: true });
    },
  };
}

/** Starts the fake Daytona of packages/backend-daytona/test (TypeScript, loaded through tsx). */
export async function startFakeDaytona() {
  const { tsImport } = await import("tsx/esm/api");
  const fakeModule = fileURLToPath(new URL("../packages/backend-daytona/test/fake-daytona/fake-daytona.ts", import.meta.url));
  const { FakeDaytona } = await tsImport(fakeModule, import.meta.url);
  return FakeDaytona.start();
}
