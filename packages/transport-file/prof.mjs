import { defineTool, executeCode } from "@codecall/core";
import { createEnvironment } from "@codecall/backend-local";
import { createTransport } from "./dist/index.js";
const echo = defineTool({ name: "echo", description: "e", parameters: { type: "object", properties: { text: { type: "string" } }, required: ["text"] }, execute: ({ text }) => text });
const environment = createEnvironment();
const log = [];
const orig = environment.executeOneshot.bind(environment);
const t0 = performance.now();
environment.executeOneshot = async (c, o) => { const s = performance.now(); const r = await orig(c, o); log.push([ (s - t0).toFixed(1), (performance.now() - s).toFixed(1), o?.stdin ? o.stdin.length : 0, r.stdout.length]); return r; };
const result = await executeCode({ environment, transport: createTransport(), tools: [echo], code: `
import time
from codecall import echo
echo("warm")
t=time.perf_counter()
for i in range(20): assert echo(str(i)) == str(i)
print("seq", (time.perf_counter()-t)/20*1000)
` });
console.log(result.output);
console.log(log.slice(-20).map(l => l.join(" ")).join("\n"));
await environment.close();
