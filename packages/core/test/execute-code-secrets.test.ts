/**
 * Secrets in `executeCode` on the in-memory pair: what the env policy keeps from the script, and
 * what is masked in the result and the live output when a secret reaches them anyway (a tool that
 * returns one, a script that finds one).
 */
import { describe, expect, it } from "vitest";
import type { ToolDefinition } from "../src/tool.js";
import type { GuestContext } from "./support/memory-guest.js";
import { useMemoryRuns } from "./support/memory-runs.js";

const { pair, execute } = useMemoryRuns();

const HOST_SECRET = "host-secret-value-0123456789";
const ENVIRONMENT_SECRET = "env-secret-value-9876543210";

/** A host tool that holds the host's secret and hands it out. */
const leakTool: ToolDefinition = { name: "leak", description: "Returns the secret.", parameters: { type: "object" }, execute: () => HOST_SECRET };

/** A script that prints the host secret (from the tool) and whatever the environment's secret variable holds. */
const printSecrets = async (script: GuestContext) => {
  const codecall = await script.importModule();
  script.print(`tool says ${String(await codecall.call("leak"))}; env says ${script.env.API_TOKEN ?? "nothing"}`);
  script.printError(`also on stderr: ${ENVIRONMENT_SECRET}\n`);
  return 1;
};

describe("secrets", () => {
  const environmentEnv = { PATH: "/bin", API_TOKEN: ENVIRONMENT_SECRET };

  it("keeps secret variables from the script and masks secret values in the result and the live output", async () => {
    const live: string[] = [];
    const decoder = new TextDecoder();
    const memory = pair(printSecrets, { env: environmentEnv });
    const result = await execute(memory, {
      tools: [leakTool],
      env: { host: { SERVICE_PASSWORD: HOST_SECRET } },
      onStdout: (chunk) => live.push(decoder.decode(chunk, { stream: true })),
    });
    expect(result.status).toBe("error");
    expect(result.output).toBe("tool says host-s...6789; env says nothing\n--- stderr ---\nalso on stderr: env-se...3210\n");
    expect(result.stderr).toBe("also on stderr: env-se...3210\n");
    expect(result.error).not.toContain(ENVIRONMENT_SECRET);
    expect(live.join("")).toBe("tool says host-s...6789; env says nothing\n");
  });

  it("passes a variable through when asked, and still masks its value in the output", async () => {
    const memory = pair(printSecrets, { env: environmentEnv });
    const result = await execute(memory, { tools: [leakTool], env: { host: {}, passthrough: ["API_TOKEN"] } });
    expect(result.output).toContain("env says env-se...3210");
    expect(result.output).not.toContain(ENVIRONMENT_SECRET);
  });

  it("shows everything as it is with redaction off", async () => {
    const live: string[] = [];
    const memory = pair(printSecrets, { env: environmentEnv });
    const result = await execute(memory, {
      tools: [leakTool],
      env: { host: { SERVICE_PASSWORD: HOST_SECRET }, passthrough: ["API_TOKEN"] },
      redactSecrets: false,
      onStdout: (chunk) => live.push(new TextDecoder().decode(chunk)),
    });
    expect(result.output).toBe(`tool says ${HOST_SECRET}; env says ${ENVIRONMENT_SECRET}\n--- stderr ---\nalso on stderr: ${ENVIRONMENT_SECRET}\n`);
    expect(live.join("")).toBe(`tool says ${HOST_SECRET}; env says ${ENVIRONMENT_SECRET}\n`);
  });
});
