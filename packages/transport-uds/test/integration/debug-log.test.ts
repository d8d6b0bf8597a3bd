/**
 * CODECALL_DEBUG=* on a real run (local + uds, after a candidate that fails to open): the lines
 * show the transport fallback, the withheld env names, the tool calls and the commands, and never
 * a secret value or the run token, wherever those travel (the env, a tool's arguments and result).
 */
import { createEnvironment } from "@codecall/backend-local";
import { defineTool, executeCode, setDebugNamespaces, setDebugSink, type Transport } from "@codecall/core";
import { afterEach, expect, it, vi } from "vitest";
import { createTransport } from "../../src/index.js";

const SECRET = "plain-looking-secret-value-0042";

afterEach(() => {
  vi.unstubAllEnvs();
  setDebugSink();
  setDebugNamespaces(undefined);
});

it("logs every namespace without printing a secret or the run token", async () => {
  vi.stubEnv("DEBUG_E2E_API_KEY", SECRET);
  const lines: string[] = [];
  setDebugSink((line) => lines.push(line));
  setDebugNamespaces("*");

  const uds = createTransport();
  let token = "";
  const observed: Transport = {
    specificationVersion: uds.specificationVersion,
    id: uds.id,
    supports: (environment) => uds.supports(environment),
    guestClient: (language) => uds.guestClient(language),
    open: (environment, run) => {
      token = run.token;
      return uds.open(environment, run);
    },
  };
  const broken: Transport = { ...observed, id: "broken", open: () => Promise.reject(new Error("no relay today")) };
  // A host tool holds the credential; the script hands it the run token as an argument.
  const credential = defineTool({
    name: "credential",
    description: "Returns the API key.",
    parameters: { type: "object", properties: { proof: { type: "string" } }, required: ["proof"] },
    execute: () => SECRET,
  });

  const environment = createEnvironment();
  try {
    const result = await executeCode({
      code: 'import os\nfrom codecall import credential\nprint(len(credential(os.environ["CODECALL_RPC_TOKEN"])))',
      environment,
      transport: [broken, observed],
      tools: [credential],
    });
    expect(result.status).toBe("success");
    expect(result.output).toBe(`${SECRET.length}\n`);
  } finally {
    await environment.close();
  }

  expect(token).toMatch(/.{16,}/);
  const text = lines.join("\n");
  expect(text).not.toContain(SECRET);
  expect(text).not.toContain(token);
  const line = (pattern: RegExp) =>
    expect(
      lines.some((entry) => pattern.test(entry)),
      `no line matches ${pattern}\n${text}`,
    ).toBe(true);
  line(/^codecall:transport \+\d+ms candidates for the local backend: broken \(supported\), uds \(supported\)$/);
  line(/^codecall:transport \+\d+ms broken failed to open: no relay today; falling back to uds$/);
  line(/^codecall:transport \+\d+ms using uds \(opened in \d+ ms\)$/);
  line(/^codecall:env \+\d+ms withheld from the script .*secret-looking: .*\bDEBUG_E2E_API_KEY\b/);
  line(/^codecall:rpc \+\d+ms call 1 credential: started, arguments \d+ bytes$/);
  line(/^codecall:rpc \+\d+ms call 1 credential: ok, answer \d+ bytes after \d+ ms$/);
  line(/^codecall:backend \+\d+ms local pid \d+: .*script\.py \[cwd .*; only env .*\bCODECALL_RPC_TOKEN\b.*; timeout \d+ ms\]$/);
  line(/^codecall:backend \+\d+ms local pid \d+: exited 0 after \d+ ms$/);
});
