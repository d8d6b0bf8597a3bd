// Local backend + UDS transport: the no-op round trip (wall, and CPU per call on each side; in a
// fresh host process, then warm: plain, watched, approved), ten concurrent 0.3 s calls (of a host tool, and of terminal), the
// overhead of executeCode over bare python3, output floods, and the floors each figure is read
// against: a Python⇄Python socket ping-pong, a Node echo host with a same-thread Python guest, and
// python3 printing the flood into a pipe Node drains.
import { execFile, spawnSync } from "node:child_process";
import { promisify } from "node:util";
import { createServer } from "node:net";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { executeCode } from "@codecall/core";
import { createEnvironment } from "@codecall/backend-local";
import { createTransport } from "@codecall/transport-uds";
import { concurrentSleepWall, concurrentToolWall, noopCallCost, noopRoundTrips, noopTool, report, timeRepeated } from "./lib.mjs";

const environment = createEnvironment();
const transport = createTransport();
// Compare like with like: the real interpreter everywhere (python3 may be a slow shim, e.g.
// pyenv's), and no PYTHONUNBUFFERED from this shell in the floors (codecall chooses its own).
const python = spawnSync("python3", ["-c", "import sys; print(sys.executable)"], { encoding: "utf8" }).stdout.trim();
const plainEnv = { ...process.env };
delete plainEnv.PYTHONUNBUFFERED;

// Floors of a sequential round trip: what a socket costs with no protocol at all.
const pingPong = spawnSync(
  python,
  [
    "-c",
    `
import json, os, socket, time
guest, host = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
if os.fork() == 0:
    guest.close()
    while True:
        data = host.recv(65536)
        if not data:
            os._exit(0)
        host.sendall(data)
host.close()
samples = []
for i in range(5200):
    t = time.perf_counter_ns(); guest.sendall(b'{"jsonrpc":"2.0","id":1,"result":null}\\n'); guest.recv(65536); samples.append((time.perf_counter_ns() - t) / 1000)
print(json.dumps(samples[200:]))
`,
  ],
  { encoding: "utf8", env: plainEnv },
);
report("floor: Python⇄Python UDS ping-pong (no protocol)", JSON.parse(pingPong.stdout), "µs");

const dir = await mkdtemp(path.join(tmpdir(), "codecall-bench-"));
const socketPath = path.join(dir, "echo.sock");
const server = createServer((socket) => socket.on("data", (chunk) => socket.write(chunk)));
await new Promise((resolve) => server.listen(socketPath, resolve));
// Async: the echo server lives on this event loop.
const raw = await promisify(execFile)(
  python,
  [
    "-c",
    `
import json, socket, time
s = socket.socket(socket.AF_UNIX); s.connect(${JSON.stringify(socketPath)})
samples = []
for i in range(5200):
    t = time.perf_counter_ns(); s.sendall(b'{"jsonrpc":"2.0","id":1,"result":null}\\n'); s.recv(65536); samples.append((time.perf_counter_ns() - t) / 1000)
print(json.dumps(samples[200:]))
`,
  ],
  { encoding: "utf8", env: plainEnv },
);
server.close();
await rm(dir, { recursive: true, force: true });
report("floor: Node echo host ⇄ same-thread Python guest", JSON.parse(raw.stdout), "µs");

// A fresh Node process runs its first ten thousand or so calls well below speed: V8 compiles the
// per-call path (ours and Node's socket streams) on the way, and on one pinned CPU the compiler's
// threads take turns with the round trip. That is a start-up cost of the host process, paid once;
// it is reported on its own row, and the rows after it are the steady state (what a long-lived
// host pays per call, and what the goal of issue 16 compares with a Python host, which has no JIT).
// (Measured cold, the plain row used to come out slower than the onEvent row taken after it.)
const cold = await noopCallCost({ environment, transport, calls: 20_000 });
report("local+uds: first 20 000 calls of a fresh host process", cold.samples, "µs");
report("  CPU per call: host (Node), while warming up", [cold.hostCpuUs], "µs");

// Three runs of 2000 calls each: one wall sample per call, one CPU figure per side and run.
const costs = [];
for (let index = 0; index < 3; index += 1) costs.push(await noopCallCost({ environment, transport }));
report(
  "local+uds: no-op tool call round trip (sequential)",
  costs.flatMap((cost) => cost.samples),
  "µs",
);
report(
  "  CPU per call: guest (Python)",
  costs.map((cost) => cost.guestCpuUs),
  "µs",
);
report(
  "  CPU per call: host (Node)",
  costs.map((cost) => cost.hostCpuUs),
  "µs",
);

// What watching and approving cost per call: an onEvent listener, and a tool whose every call is
// asked (and approved at once) — the approval step, its events and the time-limit hold.
report("local+uds: the same, with an onEvent listener", await noopRoundTrips({ environment, transport, options: { onEvent: () => {} } }), "µs");
report(
  "local+uds: the same, every call approved by onApproval",
  await noopRoundTrips({ environment, transport, tool: { ...noopTool, needsApproval: true }, options: { onApproval: () => "approve" } }),
  "µs",
);

report("local+uds: 10 concurrent 0.3 s host-tool calls, wall time", await concurrentToolWall({ environment, transport }), "ms");
report("local+uds: 10 concurrent terminal('sleep 0.3') calls, wall time", await concurrentSleepWall({ environment, transport }), "ms");

// Samples interleaved so load drift hits both equally.
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

// Output floods: 200 MiB in 1 KiB lines, each run in a fresh process (flood-once.mjs) so that its
// memory growth is its own.
const floodOnce = fileURLToPath(new URL("flood-once.mjs", import.meta.url));
async function reportFlood(label, kind) {
  const samples = [];
  for (let index = 0; index < 3; index += 1) {
    const { stdout } = await promisify(execFile)(process.execPath, [floodOnce, kind, python], { encoding: "utf8", env: process.env });
    samples.push(JSON.parse(stdout));
  }
  report(
    `${label}: wall`,
    samples.map((sample) => sample.wall),
    "ms",
  );
  report(
    `  host CPU (${kind})`,
    samples.map((sample) => sample.cpu),
    "ms",
  );
  report(
    `  host memory growth (${kind})`,
    samples.map((sample) => sample.growth),
    "MiB",
  );
}
await reportFlood("floor: python3 floods a pipe Node drains (block-buffered)", "floor-buffered");
await reportFlood("floor: the same, PYTHONUNBUFFERED", "floor-unbuffered");
await reportFlood("local+uds: 200 MiB printed in 1 KiB lines", "codecall");
await reportFlood("  the same, with live output (onStdout)", "codecall-live");

await environment.close();
