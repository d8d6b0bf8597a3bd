// An agent loop with the Vercel AI SDK and codecall. The model gets one tool, `execute_code`; the
// scripts it writes call the host's AI SDK tools (zod schemas, converted with fromAiSdkTools), fan
// out with threads, and print only the answer. The loop is the AI SDK's own: generateText with
// tools and stopWhen.
//
//   npx tsx examples/ai-sdk-agent.ts                    # a scripted stand-in model, no network
//   OPENAI_API_KEY=... npx tsx examples/ai-sdk-agent.ts # a real model (CODECALL_MODEL, default gpt-4.1-mini)
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { createEnvironment } from "@codecall/backend-local";
import { createTransport } from "@codecall/transport-uds";
import { codeTool, fromAiSdkTools } from "@codecall/ai-sdk";
import { generateText, stepCountIs, tool, type LanguageModel } from "ai";
import { MockLanguageModelV3 } from "ai/test";
import { z } from "zod";

/** The host's data; the tools below would call a real helpdesk API and hold its key. */
const TICKETS = [
  { id: "T-1", customer: "c-7", title: "Login fails after password reset", status: "open" },
  { id: "T-2", customer: "c-3", title: "Invoice shows the wrong VAT", status: "closed" },
  { id: "T-3", customer: "c-7", title: "Login page times out", status: "open" },
  { id: "T-4", customer: "c-9", title: "Cannot login with SSO", status: "open" },
];
const CUSTOMERS: Record<string, { name: string; plan: string }> = {
  "c-3": { name: "Umbra Ltd", plan: "free" },
  "c-7": { name: "Acme Corp", plan: "enterprise" },
  "c-9": { name: "Globex", plan: "team" },
};

// Ordinary AI SDK tools: the same objects could be given to generateText directly.
const helpdesk = {
  "search-tickets": tool({
    description: "Searches the helpdesk tickets by words in their title.",
    inputSchema: z.object({
      query: z.string().min(1).describe("Words to look for."),
      status: z.enum(["open", "closed", "any"]).default("open"),
    }),
    execute: async ({ query, status }) =>
      TICKETS.filter((ticket) => ticket.title.toLowerCase().includes(query.toLowerCase()) && (status === "any" || ticket.status === status)),
  }),
  "get-customer": tool({
    description: "Looks a customer up by id.",
    inputSchema: z.object({ id: z.string() }),
    execute: async ({ id }) => CUSTOMERS[id] ?? null,
  }),
};

/** What a model would write for the question below: one search, the customers fetched concurrently, one line back. */
const SCRIPT = `
from concurrent.futures import ThreadPoolExecutor
from codecall import search_tickets, get_customer

tickets = search_tickets("login")
ids = sorted({t["customer"] for t in tickets})
with ThreadPoolExecutor(len(ids)) as pool:
    customers = dict(zip(ids, pool.map(get_customer, ids)))
enterprise = [t["id"] for t in tickets if customers[t["customer"]]["plan"] == "enterprise"]
print(f"{len(tickets)} open login tickets from {len(ids)} customers; enterprise: {', '.join(enterprise) or 'none'}")
`;

/** Without an API key: a stand-in model that calls execute_code once, then answers with what the script printed. */
function scriptedModel(): LanguageModel {
  const usage = {
    inputTokens: { total: 0, noCache: 0, cacheRead: undefined, cacheWrite: undefined },
    outputTokens: { total: 0, text: 0, reasoning: undefined },
  };
  return new MockLanguageModelV3({
    doGenerate: async ({ prompt, abortSignal }) => {
      abortSignal?.throwIfAborted();
      const result = prompt.flatMap((message) => (message.role === "tool" ? message.content : [])).find((part) => part.type === "tool-result");
      if (result === undefined) {
        return {
          content: [{ type: "tool-call", toolCallId: "call-1", toolName: "execute_code", input: JSON.stringify({ code: SCRIPT }) }],
          finishReason: { unified: "tool-calls", raw: undefined },
          usage,
          warnings: [],
        };
      }
      // codeTool's model output: a status line, then what the script printed after "output:".
      const seen = result.output.type === "text" || result.output.type === "error-text" ? result.output.value : JSON.stringify(result.output);
      return {
        content: [{ type: "text", text: `From the script: ${seen.slice(seen.indexOf("output:\n") + "output:\n".length).trim()}` }],
        finishReason: { unified: "stop", raw: undefined },
        usage,
        warnings: [],
      };
    },
  });
}

async function chooseModel(): Promise<{ model: LanguageModel; label: string }> {
  if (!process.env.OPENAI_API_KEY) return { model: scriptedModel(), label: "scripted stand-in (set OPENAI_API_KEY for a real model)" };
  const { openai } = await import("@ai-sdk/openai");
  const modelId = process.env.CODECALL_MODEL ?? "gpt-4.1-mini";
  return { model: openai(modelId), label: `openai ${modelId}` };
}

const workdir = await mkdtemp(path.join(tmpdir(), "codecall-ai-sdk-agent-"));
const environment = createEnvironment({ cwd: workdir });
try {
  const { model, label } = await chooseModel();
  console.log(`model: ${label}`);
  const result = await generateText({
    model,
    tools: { execute_code: codeTool({ environment, transport: createTransport(), tools: await fromAiSdkTools(helpdesk) }) },
    stopWhen: stepCountIs(5),
    system: "Answer with the execute_code tool: one script that calls the tools it needs and prints only the answer.",
    prompt: "Which open tickets mention login, and which of them come from enterprise customers?",
    abortSignal: AbortSignal.timeout(120_000),
  });
  for (const [index, step] of result.steps.entries()) {
    for (const toolResult of step.toolResults) {
      if (toolResult.dynamic) continue; // a tool defined at run time: none here
      const run = toolResult.output;
      console.log(
        `step ${index + 1}: execute_code → ${run.status}, ${run.toolCallsMade} tool call${run.toolCallsMade === 1 ? "" : "s"}, printed: ${run.output.trim()}`,
      );
    }
  }
  console.log(`answer: ${result.text}`);
} finally {
  await environment.close();
  await rm(workdir, { recursive: true, force: true });
}
