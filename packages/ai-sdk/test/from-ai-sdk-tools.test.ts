/**
 * fromAiSdkTools on its own: names, the JSON Schema the stub is written from, validation by the
 * tool's own schema, needsApproval as codecall's, the call options an AI SDK tool gets, and the tools a script must not call.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { toStandardJsonSchema } from "@valibot/to-json-schema";
import { createEnvironment } from "@codecall/backend-local";
import { checkToolSet, CodecallError, executeCode, type Environment, type NeedsApproval, type ToolContext } from "@codecall/core";
import { describePythonSignatures } from "@codecall/core/protocol";
import { createTransport } from "@codecall/transport-uds";
import { dynamicTool, jsonSchema, tool, type ToolExecutionOptions } from "ai";
import * as v from "valibot";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { fromAiSdkTools } from "../src/index.js";

const noop = { execute: () => "ok" };
const object = z.object({});

/** A context as the dispatcher gives one; tools here never touch the environment. */
function context(signal = new AbortController().signal, callId = "1"): ToolContext {
  return { environment: {} as Environment, signal, runId: "run-1", callId };
}

describe("names", () => {
  it("maps tool names to importable Python names, keeping the AI SDK name beside", async () => {
    const tools = await fromAiSdkTools({
      "get-weather": tool({ inputSchema: object, ...noop }),
      get_weather: tool({ inputSchema: object, ...noop }),
      print: tool({ inputSchema: object, ...noop }),
      "search.web": tool({ inputSchema: object, ...noop }),
    });
    expect(tools.map(({ name, aiSdkName }) => [name, aiSdkName])).toEqual([
      ["get_weather", "get-weather"],
      ["get_weather_2", "get_weather"],
      ["print_tool", "print"],
      ["search_web", "search.web"],
    ]);
    expect(() => checkToolSet(tools)).not.toThrow();
  });

  it("applies a prefix and stays clear of reserved names", async () => {
    const tools = await fromAiSdkTools({ search: tool({ inputSchema: object, ...noop }) }, { prefix: "web", reserved: ["web_search"] });
    expect(tools.map((each) => each.name)).toEqual(["web_search_2"]);
  });
});

describe("schemas", () => {
  it("makes a zod field with a default an optional keyword argument, and documents the output schema", async () => {
    const [forecast] = await fromAiSdkTools({
      forecast: tool({
        description: "Forecast for a city.",
        inputSchema: z.object({ city: z.string().describe("City name."), days: z.number().int().min(1).default(3) }),
        outputSchema: z.object({ high: z.number() }),
        execute: ({ days }) => ({ high: days }),
      }),
    });
    expect(forecast!.parameters).toMatchObject({ required: ["city"], properties: { days: { type: "integer", default: 3 } } });
    expect(describePythonSignatures([forecast!])).toEqual([
      'forecast(city: str, days: int = 3) -> dict: Forecast for a city.  Returns {"high": float}',
    ]);
  });

  it("takes jsonSchema() inputs as they are, and valibot through Standard JSON Schema", async () => {
    const [raw, valibot] = await fromAiSdkTools({
      raw: tool({
        inputSchema: jsonSchema<{ q: string }>({ type: "object", properties: { q: { type: "string" } }, required: ["q"] }),
        ...noop,
      }),
      valibot: tool({ inputSchema: toStandardJsonSchema(v.object({ n: v.optional(v.number(), 2) })), ...noop }),
    });
    expect(raw!.parameters).toEqual({ type: "object", properties: { q: { type: "string" } }, required: ["q"] });
    expect(describePythonSignatures([raw!, valibot!])).toEqual(["raw(q: str) -> Any", "valibot(n: float = 2) -> Any"]);
  });

  it("refuses a schema that cannot describe itself as JSON Schema, naming the tool", async () => {
    const converting = fromAiSdkTools({ plain: tool({ inputSchema: v.object({ n: v.number() }), ...noop }) });
    await expect(converting).rejects.toThrow(CodecallError);
    await expect(converting).rejects.toThrow(/AI SDK tool "plain" has a schema that cannot be converted to JSON Schema: .*valibot/);
  });

  it("refuses input that is not an object: a script passes arguments by name", async () => {
    await expect(fromAiSdkTools({ scalar: tool({ inputSchema: z.string(), ...noop }) })).rejects.toThrow(
      /AI SDK tool "scalar" accepts no arguments object \(its type is "string", not "object"\): .*must be of an object/,
    );
    // The same rule as core's: a union of scalars is refused, a nullable object accepted.
    await expect(
      fromAiSdkTools({ either: tool({ inputSchema: jsonSchema({ anyOf: [{ type: "string" }, { type: "number" }] }), ...noop }) }),
    ).rejects.toThrow(/AI SDK tool "either" accepts no arguments object \(none of its anyOf options accepts an object/);
    const nullable = await fromAiSdkTools({ maybe: tool({ inputSchema: jsonSchema({ type: ["object", "null"], properties: {} }), ...noop }) });
    expect(() => checkToolSet(nullable)).not.toThrow();
  });
});

describe("tools a script must not call", () => {
  it("refuses a tool without execute (the client answers it)", async () => {
    await expect(fromAiSdkTools({ ask_user: tool({ inputSchema: object }) })).rejects.toThrow(
      /AI SDK tool "ask_user" has no execute function .*Leave it out/,
    );
  });
});

describe("needsApproval", () => {
  it("keeps true as true and leaves a tool that never needs approval without one", async () => {
    const [always, never, unset] = await fromAiSdkTools({
      always: tool({ inputSchema: object, needsApproval: true, ...noop }),
      never: tool({ inputSchema: object, needsApproval: false, ...noop }),
      unset: tool({ inputSchema: object, ...noop }),
    });
    expect(always!.needsApproval).toBe(true);
    expect(never!.needsApproval).toBeUndefined();
    expect(unset!.needsApproval).toBeUndefined();
  });

  it("calls the tool's function with the parsed input and the AI SDK's options; invalid input needs none (it fails before the tool runs)", async () => {
    const seen: unknown[] = [];
    const [archive] = await fromAiSdkTools(
      {
        archive: tool({
          inputSchema: z.object({ id: z.number(), kind: z.enum(["draft", "live"]).default("live") }),
          needsApproval: (input, options) => (seen.push({ input, ...options }), input.kind === "live"),
          ...noop,
        }),
      },
      { messages: [{ role: "user", content: "hi" }], experimental_context: "ctx" },
    );
    const rule = archive!.needsApproval as Exclude<NeedsApproval, boolean>;
    const approvalContext = { runId: "r1", callId: "4", signal: new AbortController().signal };
    await expect(rule({ id: 1 }, approvalContext)).resolves.toBe(true);
    await expect(rule({ id: 1, kind: "draft" }, approvalContext)).resolves.toBe(false);
    await expect(rule({ id: "x" }, approvalContext)).resolves.toBe(false);
    expect(seen).toEqual([
      { input: { id: 1, kind: "live" }, toolCallId: "codecall-r1-4", messages: [{ role: "user", content: "hi" }], experimental_context: "ctx" },
      { input: { id: 1, kind: "draft" }, toolCallId: "codecall-r1-4", messages: [{ role: "user", content: "hi" }], experimental_context: "ctx" },
    ]);
  });

  it("parses once per call: the rule decides on the very value execute then runs with", async () => {
    let parses = 0;
    const received: unknown[] = [];
    const [counted] = await fromAiSdkTools({
      counted: tool({
        inputSchema: z.object({ n: z.number() }).transform((input) => ({ ...input, parse: ++parses })),
        needsApproval: (input) => input.parse === 1,
        execute: (input) => (received.push(input), "ok"),
      }),
    });
    const args = { n: 5 };
    const rule = counted!.needsApproval as Exclude<NeedsApproval, boolean>;
    await expect(rule(args, { runId: "r", callId: "1", signal: new AbortController().signal })).resolves.toBe(true);
    await counted!.execute(args, context());
    expect(received).toEqual([{ n: 5, parse: 1 }]);
    // Taken by execute: the same object called again outside a run is parsed afresh.
    await counted!.execute(args, context());
    expect(received[1]).toEqual({ n: 5, parse: 2 });
  });
});

describe("execute", () => {
  it("validates with the tool's own schema: zod's defaults and transforms reach the AI SDK tool", async () => {
    const received: unknown[] = [];
    const [when] = await fromAiSdkTools({
      when: tool({
        inputSchema: z.object({ day: z.iso.date().transform((text) => new Date(`${text}T00:00:00Z`)), tz: z.string().default("UTC") }),
        execute: (input) => {
          received.push(input);
          return input.day.getUTCDay();
        },
      }),
    });
    await expect(when!.execute({ day: "2024-03-01" }, context())).resolves.toBe(5);
    expect(received).toEqual([{ day: new Date("2024-03-01T00:00:00Z"), tz: "UTC" }]);
    await expect(when!.execute({ day: "someday" }, context())).rejects.toThrow(/^Invalid arguments: 'day' .*date/i);
    expect(received).toHaveLength(1);
  });

  it("runs a jsonSchema() validator and reports its issues", async () => {
    const [checked] = await fromAiSdkTools({
      checked: tool({
        inputSchema: jsonSchema<{ n: number }>(
          { type: "object", properties: { n: { type: "number" } } },
          {
            validate: (value) =>
              (value as { n?: number }).n === 7
                ? { success: true, value: { n: 7 } }
                : { success: false, error: Object.assign(new Error("bad"), { issues: [{ message: "must be 7", path: ["n"] }] }) },
          },
        ),
        execute: ({ n }) => n * 2,
      }),
    });
    await expect(checked!.execute({ n: 7 }, context())).resolves.toBe(14);
    await expect(checked!.execute({ n: 8 }, context())).rejects.toThrow("Invalid arguments: 'n' must be 7");
  });

  it("gives each call its own toolCallId (the run's id and the call's number), the run's abort signal, messages and the experimental context", async () => {
    const seen: ToolExecutionOptions[] = [];
    const [probe] = await fromAiSdkTools(
      { probe: dynamicTool({ inputSchema: object, execute: (_input, options) => (seen.push(options), "ok") }) },
      { experimental_context: { user: "ada" } },
    );
    const controller = new AbortController();
    await probe!.execute({}, context(controller.signal, "1"));
    await probe!.execute({}, context(controller.signal, "2"));
    expect(seen.map((options) => options.toolCallId)).toEqual(["codecall-run-1-1", "codecall-run-1-2"]);
    expect(seen[0]).toMatchObject({ messages: [], experimental_context: { user: "ada" } });
    expect(seen[0]!.abortSignal).toBe(controller.signal);
  });

  it("returns the last value of a tool that streams preliminary results", async () => {
    const [progress] = await fromAiSdkTools({
      progress: tool({
        inputSchema: object,
        async *execute() {
          yield { done: 1 };
          yield { done: 2 };
        },
      }),
    });
    await expect(progress!.execute({}, context())).resolves.toEqual({ done: 2 });
  });

  it("stops pulling from a streaming tool once its call is cancelled, so an endless one ends and cleans up", async () => {
    let pulls = 0;
    let cleanedUp = false;
    const [endless] = await fromAiSdkTools({
      endless: tool({
        inputSchema: object,
        async *execute() {
          try {
            for (;;) {
              pulls += 1;
              await new Promise((resolve) => setImmediate(resolve));
              yield { pulls };
            }
          } finally {
            cleanedUp = true;
          }
        },
      }),
    });
    const controller = new AbortController();
    const call: Promise<string> = Promise.resolve(endless!.execute({}, context(controller.signal))).then(
      () => "resolved",
      () => "rejected",
    );
    while (pulls < 3) await new Promise((resolve) => setImmediate(resolve));
    controller.abort(new Error("the run has ended"));
    const pullsAtAbort = pulls;
    // Counted, not timed: the generator gets 50 more turns to show it is still pulled.
    let outcome: string | undefined;
    void call.then((value) => (outcome = value));
    for (let turn = 0; turn < 50 && outcome === undefined; turn += 1) await new Promise((resolve) => setImmediate(resolve));
    expect(outcome).toBe("rejected");
    expect(cleanedUp).toBe(true);
    expect(pulls - pullsAtAbort).toBeLessThanOrEqual(1);
  });
});

describe("from a script", () => {
  it("refuses arguments the AI SDK's JSON Schema refuses before the tool's own schema runs", async () => {
    const calls: unknown[] = [];
    const tools = await fromAiSdkTools({
      "get-weather": tool({ inputSchema: z.object({ city: z.string() }), execute: (input) => (calls.push(input), { temp: 3 }) }),
    });
    const workdir = await mkdtemp(path.join(tmpdir(), "codecall-ai-sdk-"));
    const environment = createEnvironment({ cwd: workdir });
    try {
      const result = await executeCode({
        code: [
          "from codecall import call_tool, get_weather, ToolError",
          "print(get_weather('Oslo')['temp'])",
          "for arguments in [{'city': 'Oslo', 'extra': 1}, {'city': 5}]:",
          "    try:",
          "        call_tool('get_weather', **arguments)",
          "    except ToolError as error:",
          "        print(error)",
        ].join("\n"),
        environment,
        transport: createTransport(),
        tools,
      });
      expect(result, result.output).toMatchObject({ status: "success" });
      const [temp, extra, wrongType] = result.output.trim().split("\n");
      expect(temp).toBe("3");
      expect(extra).toMatch(/Invalid arguments: .*extra/);
      expect(wrongType).toMatch(/Invalid arguments: 'city' must be a string/);
      expect(calls).toEqual([{ city: "Oslo" }]);
    } finally {
      await environment.close();
      await rm(workdir, { recursive: true, force: true });
    }
  });
});
