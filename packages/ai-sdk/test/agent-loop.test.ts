/**
 * The AI SDK's own tool loop around codecall, end to end: generateText and streamText with the
 * SDK's mock model (no network) call `execute_code`; the script runs on the local backend over the
 * uds transport and calls converted AI SDK tools from three threads at once; the model's next step
 * reads the script's output. Aborting the generation interrupts the script and ends its process.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { createEnvironment } from "@codecall/backend-local";
import type { Environment, ExecuteCodeResult } from "@codecall/core";
import { createTransport } from "@codecall/transport-uds";
import { generateText, stepCountIs, streamText, tool } from "ai";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { codeTool, fromAiSdkTools } from "../src/index.js";
import { answerFor, lastToolResult, scriptedModel } from "./support/scripted-model.js";

let workdir: string;
let environment: Environment;

beforeAll(async () => {
  workdir = await mkdtemp(path.join(tmpdir(), "codecall-ai-sdk-"));
  environment = createEnvironment({ cwd: workdir });
});

afterAll(async () => {
  await environment?.close();
  await rm(workdir, { recursive: true, force: true });
});

/** What the AI SDK tool saw, per call. */
interface WeatherCall {
  city: string;
  unit: string;
  toolCallId: string;
  signal: AbortSignal | undefined;
}
let calls: WeatherCall[];
let waiting: (() => void)[];

beforeEach(() => {
  calls = [];
  waiting = [];
});

/** Only calls that run at the same time meet: each waits until `parties` have arrived. */
const PARTIES = 3;
/** A transport that serialised the calls would never let them meet: give up, so the test fails instead of hanging. */
const GIVE_UP_MS = 10_000;

const aiTools = {
  "get-weather": tool({
    description: "Current temperature in a city.",
    inputSchema: z.object({ city: z.string().min(2), unit: z.enum(["c", "f"]).default("c") }),
    execute: async ({ city, unit }, { toolCallId, abortSignal }) => {
      calls.push({ city, unit, toolCallId, signal: abortSignal });
      const together = await new Promise<number>((resolve) => {
        const timer = setTimeout(() => resolve(waiting.length), GIVE_UP_MS);
        waiting.push(() => {
          clearTimeout(timer);
          resolve(PARTIES);
        });
        if (waiting.length >= PARTIES) for (const release of waiting.splice(0)) release();
      });
      return { city, temp: city.length * 3, unit, together };
    },
  }),
};

const FAN_OUT = `
from concurrent.futures import ThreadPoolExecutor
from codecall import get_weather

with ThreadPoolExecutor(3) as pool:
    reports = list(pool.map(get_weather, ["Oslo", "Lima", "Cairo"]))
warmest = max(reports, key=lambda r: r["temp"])
print(f"warmest: {warmest['city']} at {warmest['temp']}{warmest['unit']}")
print(f"calls that met: {min(r['together'] for r in reports)}")
`;

async function executeCodeTool() {
  return codeTool({ environment, transport: createTransport(), tools: await fromAiSdkTools(aiTools) });
}

/** The three calls arrived together, each with its own toolCallId and a live abort signal. */
function expectConcurrentCalls(): void {
  expect(calls.map((call) => call.city).sort()).toEqual(["Cairo", "Lima", "Oslo"]);
  expect(calls.every((call) => call.unit === "c")).toBe(true);
  expect(new Set(calls.map((call) => call.toolCallId)).size).toBe(3);
  for (const call of calls) {
    expect(call.toolCallId).toMatch(/^codecall-[0-9a-f]{16}-[123]$/);
    expect(call.signal).toBeInstanceOf(AbortSignal);
  }
}

const SCRIPT_OUTPUT = "warmest: Cairo at 15c\ncalls that met: 3\n";

describe("generateText with codeTool and converted AI SDK tools", () => {
  it("runs the model's script, whose concurrent tool calls reach the AI SDK tools, and feeds the output to the next step", async () => {
    const model = scriptedModel(FAN_OUT);
    const result = await generateText({
      model,
      tools: { execute_code: await executeCodeTool() },
      stopWhen: stepCountIs(3),
      prompt: "Which city is warmest?",
    });

    expectConcurrentCalls();
    expect(result.steps).toHaveLength(2);
    const [toolResult] = result.steps[0]!.toolResults;
    expect(toolResult?.toolName).toBe("execute_code");
    expect(toolResult?.output).toMatchObject({ status: "success", output: SCRIPT_OUTPUT, toolCallsMade: 3, backend: "local", transport: "uds" });

    // The model saw the tool description with the stub signature, and then the script's output.
    const firstCall = model.doGenerateCalls[0]!;
    const offered = firstCall.tools?.find((candidate) => candidate.name === "execute_code");
    expect(offered?.type === "function" && offered.description).toContain('get_weather(city: str, unit: str = "c")');
    const seen = lastToolResult(model.doGenerateCalls[1]!);
    expect(seen).toEqual({ type: "text", value: expect.stringMatching(/^status: success \(3 tool calls, [\d.]+ s\)\noutput:\n/) as string });
    expect(seen?.value.endsWith(SCRIPT_OUTPUT)).toBe(true);
    expect(result.text).toBe(answerFor(seen!.value));
  });

  it("gives the model a failed script as an error result with the status, the error and the traceback", async () => {
    const model = scriptedModel('from codecall import get_weather\nget_weather("X")\n');
    const result = await generateText({ model, tools: { execute_code: await executeCodeTool() }, stopWhen: stepCountIs(3), prompt: "Go." });
    expect(result.steps[0]!.toolResults[0]?.output).toMatchObject({ status: "error", exitCode: 1 });
    const seen = lastToolResult(model.doGenerateCalls[1]!);
    expect(seen?.type).toBe("error-text");
    expect(seen?.value).toMatch(/^status: error \(exit code 1, 0 tool calls, [\d.]+ s\)\nerror: .+\noutput:\n/);
    expect(seen?.value).toContain("codecall.ToolError: get_weather: Invalid arguments: 'city' must have at least 2 characters");
    expect(calls).toEqual([]);
  });
});

describe("streamText with codeTool", () => {
  it("streams the same loop: the script's output reaches the model's next step", async () => {
    const model = scriptedModel(FAN_OUT);
    const result = streamText({
      model,
      tools: { execute_code: await executeCodeTool() },
      stopWhen: stepCountIs(3),
      prompt: "Which city is warmest?",
    });

    const text = await result.text;
    const steps = await result.steps;
    expectConcurrentCalls();
    expect(steps[0]!.toolResults[0]?.output).toMatchObject({ status: "success", output: SCRIPT_OUTPUT, toolCallsMade: 3 });
    const seen = lastToolResult(model.doStreamCalls[1]!);
    expect(seen?.value.endsWith(SCRIPT_OUTPUT)).toBe(true);
    expect(text).toBe(answerFor(seen!.value));
  });
});

describe("aborting the generation", () => {
  it("interrupts the script, cancels the AI SDK tool it waits for, and ends its process", async () => {
    let stallSignal: AbortSignal | undefined;
    let markStalled!: () => void;
    const stalled = new Promise<void>((resolve) => (markStalled = resolve));
    const tools = await fromAiSdkTools({
      stall: tool({
        description: "Waits until cancelled.",
        inputSchema: z.object({}),
        execute: (_input, { abortSignal }) =>
          new Promise((_resolve, reject) => {
            stallSignal = abortSignal;
            abortSignal?.addEventListener("abort", () => reject(new Error("stall cancelled")));
            markStalled();
          }),
      }),
    });
    let printed = "";
    const executeCode = codeTool({
      environment,
      transport: createTransport(),
      tools,
      onStdout: (chunk) => (printed += new TextDecoder().decode(chunk)),
    });
    // Observe what the tool returns, though the aborted generation never reports it.
    const results: ExecuteCodeResult[] = [];
    const execute = executeCode.execute!;
    executeCode.execute = async (input, options) => {
      const result = (await execute(input, options)) as ExecuteCodeResult;
      results.push(result);
      return result;
    };

    const controller = new AbortController();
    const generation = generateText({
      model: scriptedModel('import os\nprint(os.getpid(), flush=True)\nfrom codecall import stall\nstall()\nprint("never")\n'),
      tools: { execute_code: executeCode },
      stopWhen: stepCountIs(3),
      abortSignal: controller.signal,
      prompt: "Wait.",
    });
    await stalled;
    await expect.poll(() => printed, { timeout: 10_000 }).toMatch(/^\d+\n/);
    const pid = Number(printed.trim());
    controller.abort();

    await expect(generation).rejects.toThrow(/abort/i);
    await expect.poll(() => results.length, { timeout: 15_000 }).toBe(1);
    expect(results[0]).toMatchObject({ status: "interrupted" });
    expect(results[0]!.output).not.toContain("never");
    expect(stallSignal?.aborted).toBe(true);
    await expect.poll(() => processAlive(pid), { timeout: 10_000 }).toBe(false);
  });
});

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code !== "ESRCH";
  }
}
