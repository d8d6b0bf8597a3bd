// examples/ai-sdk-agent.ts as a user runs it (through tsx, on Node 20): the AI SDK's agent loop
// around a real script on the local backend calling AI SDK tools. Once with the scripted stand-in
// model, once with the real OpenAI provider (@ai-sdk/openai) talking to a fake Responses API on
// 127.0.0.1, which shows the provider path end to end: the tool as OpenAI receives it, the
// script's output in the next request.
import { execFile } from "node:child_process";
import { once } from "node:events";
import { createServer } from "node:http";
import { promisify } from "node:util";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";

const example = fileURLToPath(new URL("../ai-sdk-agent.ts", import.meta.url));
const tsx = fileURLToPath(new URL("../node_modules/.bin/tsx", import.meta.url));
const run = promisify(execFile);

/** The environment without any OpenAI settings of the machine running the tests. */
function cleanEnv() {
  const env = { ...process.env };
  for (const name of Object.keys(env)) if (name.startsWith("OPENAI_") || name === "CODECALL_MODEL") delete env[name];
  return env;
}

let server;
afterEach(() => server?.close());

/**
 * A stand-in for OpenAI's Responses API: the first request gets a function call to execute_code
 * with `code`, a request that carries the call's output gets a message quoting it.
 */
async function fakeResponsesApi(code) {
  const requests = [];
  server = createServer(async (request, response) => {
    let body = "";
    for await (const chunk of request) body += chunk;
    const parsed = JSON.parse(body);
    requests.push({ path: request.url, authorization: request.headers.authorization, body: parsed });
    const result = parsed.input.find((item) => item.type === "function_call_output");
    const output = result
      ? [{ type: "message", role: "assistant", id: "msg_1", content: [{ type: "output_text", text: `Seen: ${result.output}`, annotations: [] }] }]
      : [{ type: "function_call", id: "fc_1", call_id: "call_1", name: "execute_code", arguments: JSON.stringify({ code }) }];
    response.writeHead(200, { "content-type": "application/json" });
    response.end(JSON.stringify({ id: `resp_${requests.length}`, created_at: 0, model: parsed.model, output }));
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  return { url: `http://127.0.0.1:${server.address().port}/v1`, requests };
}

describe("ai-sdk-agent example", () => {
  it("runs the agent loop with the stand-in model when no API key is set", async () => {
    const { stdout, stderr } = await run(tsx, [example], { encoding: "utf8", timeout: 60_000, env: cleanEnv() });
    expect(stderr).toBe("");
    expect(stdout).toBe(
      [
        "model: scripted stand-in (set OPENAI_API_KEY for a real model)",
        "step 1: execute_code → success, 3 tool calls, printed: 3 open login tickets from 2 customers; enterprise: T-1, T-3",
        "answer: From the script: 3 open login tickets from 2 customers; enterprise: T-1, T-3",
        "",
      ].join("\n"),
    );
  }, 70_000);

  it("uses the OpenAI provider when OPENAI_API_KEY is set (here against a local fake of its API)", async () => {
    const api = await fakeResponsesApi('from codecall import search_tickets\nprint(len(search_tickets("login", status="any")))\n');
    const env = { ...cleanEnv(), OPENAI_API_KEY: "sk-test", OPENAI_BASE_URL: api.url, CODECALL_MODEL: "fake-model" };
    const { stdout, stderr } = await run(tsx, [example], { encoding: "utf8", timeout: 60_000, env });
    expect(stderr).toBe("");
    expect(stdout).toMatch(
      /^model: openai fake-model\nstep 1: execute_code → success, 1 tool call, printed: 3\nanswer: Seen: status: success \(1 tool call, [\d.]+ s\)\noutput:\n3\n\n$/,
    );

    expect(api.requests.map((each) => [each.path, each.authorization, each.body.model])).toEqual([
      ["/v1/responses", "Bearer sk-test", "fake-model"],
      ["/v1/responses", "Bearer sk-test", "fake-model"],
    ]);
    const [offered] = api.requests[0].body.tools;
    expect(offered).toMatchObject({ type: "function", name: "execute_code", parameters: { required: ["code"] } });
    expect(offered.description).toContain('search_tickets(query: str, status: str = "open") -> Any');
    expect(offered.description).toContain("get_customer(id: str) -> Any");
  }, 70_000);
});
