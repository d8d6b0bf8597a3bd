// What typed and converted tools add to one tool call (local backend + uds): the same search tool
// as a JSON Schema literal, as a zod schema through defineTool (JSON Schema check, then zod's
// own validation), and as an AI SDK tool converted with fromAiSdkTools (the same, plus the AI
// SDK's call options). Samples are interleaved per round so load drift hits all three equally.
import { fromAiSdkTools } from "@codecall/ai-sdk";
import { createEnvironment } from "@codecall/backend-local";
import { defineTool } from "@codecall/core";
import { createTransport } from "@codecall/transport-uds";
import { tool } from "ai";
import { z } from "zod";
import { noopRoundTrips, report } from "./lib.mjs";

const description = "Searches (returns nothing).";
const search = z.object({ query: z.string().min(1), limit: z.number().int().max(100).default(10), tags: z.array(z.string()).optional() });
const variants = [
  {
    label: "JSON Schema literal (defineTool)",
    tool: defineTool({
      name: "search",
      description,
      parameters: {
        type: "object",
        properties: {
          query: { type: "string", minLength: 1 },
          limit: { type: "integer", maximum: 100 },
          tags: { type: "array", items: { type: "string" } },
        },
        required: ["query"],
      },
      execute: () => null,
    }),
  },
  { label: "zod 4 schema (defineTool)", tool: defineTool({ name: "search", description, parameters: search, execute: () => null }) },
  {
    label: "AI SDK tool, zod 4 (fromAiSdkTools)",
    tool: (await fromAiSdkTools({ search: tool({ description, inputSchema: search, execute: async () => null }) }))[0],
  },
];

const environment = createEnvironment();
const transport = createTransport();
const samples = variants.map(() => []);
for (let round = 0; round < 5; round += 1) {
  for (const [index, variant] of variants.entries()) {
    samples[index].push(
      ...(await noopRoundTrips({ environment, transport, tool: variant.tool, call: 'search("codecall", tags=["a", "b"])', calls: 400, warmup: 40 })),
    );
  }
}
for (const [index, variant] of variants.entries()) report(`local+uds: tool call round trip, ${variant.label}`, samples[index], "µs");
await environment.close();
