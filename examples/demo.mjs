// The codecall demo: a model-written Python script calls host tools — built-in ones that act on
// the environment, and a host-side "API" tool — some of them concurrently. Only what the script
// prints comes back. Runs under Node (`node examples/demo.mjs`) and Deno
// (`deno run --allow-all examples/demo.mjs`).
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { defineTool, executeCode } from "@codecall/core";
import { createEnvironment } from "@codecall/backend-local";
import { createTransport } from "@codecall/transport-uds";
import { builtinTools } from "@codecall/tools";

/** A host-side tool standing in for a slow web API (it would hold the API key, not the script). */
const forecast = defineTool({
  name: "forecast",
  description: "Tomorrow's forecast for a city (takes about half a second, like a real API).",
  parameters: {
    type: "object",
    properties: { city: { type: "string", description: "City name, e.g. 'Lisbon'." } },
    required: ["city"],
    additionalProperties: false,
  },
  returns: { type: "object", properties: { city: { type: "string" }, high_c: { type: "integer" }, sky: { type: "string" } } },
  async execute({ city }) {
    await new Promise((resolve) => setTimeout(resolve, 500));
    const seed = [...city].reduce((sum, char) => sum + char.charCodeAt(0), 0);
    return { city, high_c: 12 + (seed % 17), sky: ["sunny", "cloudy", "rain", "windy"][seed % 4] };
  },
});

// What a model would write: eight API calls at once, then files written and searched where the
// script runs, then one line of summary. None of the intermediate data reaches the model.
const script = String.raw`
import time
from concurrent.futures import ThreadPoolExecutor
from codecall import forecast, write_file, search_files, terminal

cities = ["Lisbon", "Oslo", "Nairobi", "Lima", "Osaka", "Reykjavik", "Cairo", "Denver"]
started = time.monotonic()
with ThreadPoolExecutor(len(cities)) as pool:
    reports = list(pool.map(forecast, cities))
elapsed = time.monotonic() - started
print(f"{len(reports)} forecasts in {elapsed:.2f}s (each call takes 0.5s; they ran concurrently)")

for report in reports:
    write_file(f"forecasts/{report['city'].lower()}.txt", f"{report['city']}: {report['high_c']}C, {report['sky']}\n")
rainy = search_files("rain", path="forecasts")
files = terminal("ls forecasts | wc -l")["output"].strip()
warmest = max(reports, key=lambda r: r["high_c"])
print(f"wrote {files} files; rain expected in: {', '.join(sorted(m['path'].split('/')[-1][:-4] for m in rainy['matches'])) or 'none'}")
print(f"warmest tomorrow: {warmest['city']} at {warmest['high_c']}C")
`;

const workdir = await mkdtemp(path.join(tmpdir(), "codecall-demo-"));
const environment = createEnvironment({ cwd: workdir });
try {
  const result = await executeCode({
    code: script,
    environment,
    transport: createTransport(),
    tools: [...builtinTools, forecast],
  });
  console.log("--- what the script printed (all the model sees) ---");
  process.stdout.write(result.output);
  console.log("--- result ---");
  console.log(
    `status=${result.status} toolCalls=${result.toolCallsMade} duration=${result.durationSeconds}s backend=${result.backend} transport=${result.transport}`,
  );
  if (result.status !== "success") process.exitCode = 1;
} finally {
  await environment.close();
  await rm(workdir, { recursive: true, force: true });
}
