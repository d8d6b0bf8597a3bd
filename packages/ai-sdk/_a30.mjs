import { codeTool, fromAiSdkTools } from "./dist/index.js";
import { createEnvironment } from "@codecall/backend-local";
import { createTransport } from "@codecall/transport-uds";
import { tool, jsonSchema } from "ai";
const environment = createEnvironment();
let executed = 0; const signals = [];
const tools = await fromAiSdkTools({
  "delete-ticket": tool({ description: "Deletes.", inputSchema: jsonSchema({ type: "object", properties: { id: { type: "string" } }, required: ["id"] }), needsApproval: true,
    execute: async ({ id }, { abortSignal }) => { executed++; signals.push(abortSignal); return `deleted ${id}`; } }),
});
const call = { toolCallId: "c1", messages: [] };
const events = [];
async function run(name, opts, code, signal) {
  const t = codeTool({ environment, transport: createTransport(), tools, ...opts });
  const t0 = Date.now();
  const r = await t.execute({ code }, { ...call, abortSignal: signal });
  console.log(`== ${name}: ${r.status} ${(Date.now()-t0)}ms err=${r.error ?? ""}\n${r.output.slice(0, 600)}`);
  return r;
}
const one = "from codecall import delete_ticket, ToolError\ntry:\n  print(delete_ticket('7'))\nexcept ToolError as e:\n  print('ERR', e)";
await run("throws", { onApproval: () => { throw new Error("boom SECRET=hunter2"); } }, one);
await run("rejects", { onApproval: async () => { throw new Error("rej"); } }, one);
await run("garbage", { onApproval: () => "yes please" }, one);
await run("never+timeout", { onApproval: () => new Promise(() => {}), approvalTimeoutMs: 500 }, one);
const ac = new AbortController();
const pend = [];
setTimeout(() => ac.abort(), 1500);
await run("abort while pending", { onApproval: (req) => new Promise((res) => { pend.push(req); }) }, one, ac.signal);
console.log("pending req signal aborted:", pend.map((r) => r.signal.aborted));
let n = 0;
await run("50 concurrent", { onApproval: async (req) => { n++; await new Promise(r => setTimeout(r, 10)); return n % 2 ? "approve" : { type: "deny", reason: "odd" }; } },
  "from concurrent.futures import ThreadPoolExecutor\nfrom codecall import delete_ticket, ToolError\ndef f(i):\n  try: return delete_ticket(str(i))\n  except ToolError as e: return 'E'\nwith ThreadPoolExecutor(50) as p: r=list(p.map(f, range(50)))\nprint(sum(1 for x in r if x=='E'), len(r))");
console.log("asked", n);
const seen = [];
await run("listener throws", { onApproval: () => "approve", onEvent: (e) => { seen.push(e.type); throw new Error("listener"); } }, one);
console.log(seen.join(","));
const seen2 = []; let fin = false; const after = [];
await run("events order", { onApproval: () => "approve", onEvent: (e) => { if (fin) after.push(e.type); if (e.type === "finished") fin = true; seen2.push(e.type); } }, "import sys\nprint('a')\nsys.stdout.write('partial')\n" + one);
await new Promise(r => setTimeout(r, 500));
console.log(seen2.join(","), "after:", after);
await environment.close();
