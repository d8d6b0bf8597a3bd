// Local backend + UDS transport: the no-op round trip (plain, watched, approved), ten concurrent 0.3 s tool calls, the
// overhead of executeCode over bare python3, and a raw Python⇄Node socket ping-pong baseline.
import { execFile, spawnSync } from "node:child_process";
import { promisify } from "node:util";
import { createServer } from "node:net";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { executeCode } from "@codecall/core";
import { createEnvironment } from "@codecall/backend-local";
import { createTransport } from "@codecall/transport-uds";
import { concurrentSleepWall, noopRoundTrips, noopTool, report, timeRepeated } from "./lib.mjs";

const environment = createEnvironment();
const transport = createTransport();

report("local+uds: no-op tool call round trip (sequential)", await noopRoundTrips({ environment, transport }), "µs");

// What watching and approving cost per call: an onEvent listener, and a tool whose every call is
// asked (and approved at once) — the approval step, its events and the time-limit hold.
report("local+uds: the same, with an onEvent listener", await noopRoundTrips({ environment, transport, options: { onEvent: () => {} } }), "µs");
report(
  "local+uds: the same, every call approved by onApproval",
  await noopRoundTrips({ environment, transport, tool: { ...noopTool, needsApproval: true }, options: { onApproval: () => "approve" } }),
  "µs",
);

report("local+uds: 10 concurrent terminal('sleep 0.3') calls, wall time", await concurrentSleepWall({ environment, transport }), "ms");

// Compare like with like: the real interpreter on both sides (python3 may be a slow shim, e.g.
// pyenv's), samples interleaved so load drift hits both equally.
const python = spawnSync("python3", ["-c", "import sys; print(sys.executable)"], { encoding: "utf8" }).stdout.trim();
const bare = [];
const full = [];
for (let index = 0; index < 20; index += 1) {
  bare.push(...(await timeRepeated(1, () => spawnSync(python, ["-c", "print('hi')"]))));
  full.push(
    ...(await timeRepeated(1, async () => {
      const result = await executeCode({ environment, transport, interpreter: python, code: "print('hi')" });
      if (result.status !== "success") throw new Error(result.output);
    })),
  );
}
report(`bare ${python} -c print`, bare, "ms");
report("executeCode(print) on local+uds, same interpreter", full, "ms");
report(
  "  overhead of executeCode over bare python",
  full.map((value, index) => value - bare[index]),
  "ms",
);

// Baseline: the cost of a socket round trip between Python and Node with no protocol at all.
const dir = await mkdtemp(path.join(tmpdir(), "codecall-bench-"));
const socketPath = path.join(dir, "echo.sock");
const server = createServer((socket) => socket.on("data", (chunk) => socket.write(chunk)));
await new Promise((resolve) => server.listen(socketPath, resolve));
// Async: the echo server lives on this event loop.
const raw = await promisify(execFile)(
  "python3",
  [
    "-c",
    `
import json, socket, time
s = socket.socket(socket.AF_UNIX); s.connect(${JSON.stringify(socketPath)})
samples = []
for i in range(2200):
    t = time.perf_counter_ns(); s.sendall(b"ping\\n"); s.recv(64); samples.append((time.perf_counter_ns() - t) / 1000)
print(json.dumps(samples[200:]))
`,
  ],
  { encoding: "utf8" },
);
server.close();
await rm(dir, { recursive: true, force: true });
report("baseline: raw Python⇄Node UDS ping-pong (no protocol)", JSON.parse(raw.stdout), "µs");

await environment.close();
