import { executeCode, defineTool } from "@codecall/core";
import { createEnvironment } from "@codecall/backend-local";
import { createTransport } from "@codecall/transport-uds";
const noop = defineTool({ name: "noop", description: "no-op", parameters: { type: "object", properties: {}, additionalProperties: false }, execute: () => null });
const environment = createEnvironment();
const code = `
import time
from codecall import noop
for _ in range(20000): noop()
res = []
for r in range(5):
    t = time.perf_counter()
    for _ in range(10000): noop()
    res.append((time.perf_counter() - t) / 10000 * 1e6)
res.sort(); print("%.1f" % res[2])
`;
const r = await executeCode({ environment, transport: createTransport(), tools: [noop], code, limits: { maxToolCalls: 1_000_000, timeoutMs: 120_000 } });
process.stdout.write(`${process.argv[2]} ${r.output.trim()} µs\n`);
await environment.close();
