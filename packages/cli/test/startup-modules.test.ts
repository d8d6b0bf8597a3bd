// What `codecall run` loads: a run on the local backend loads that backend and what every run
// needs, and none of what only other runs or other commands need — the other backends and the
// remote executor they share, the transports it would only fall back to, the MCP client and
// server, the AI SDK, the TypeScript loader, OpenTelemetry, the terminal prompt — nor modules that
// the build bundles into one (each module costs its own load): what a local run needs comes from
// the command's own build, in a few modules, not from the packages it was built from. Start-up
// is most of a short run's time, so each of these is imported only when it is used; this holds
// the line without timing anything.
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli } from "./support.js";

const fixture = (name: string) => pathToFileURL(path.resolve(import.meta.dirname, "fixtures", name)).href;
const RECORDER = fixture("record-modules.mjs");
const OPEN_TELEMETRY_SETUP = fixture("open-telemetry-setup.mjs");

/** Modules a plain local run must not load, by what their resolved URLs contain. */
const NOT_NEEDED: Record<string, RegExp> = {
  "another backend": /\/(backend-(docker|ssh|modal|daytona|singularity))\/|dockerode|ssh2|@daytonaio|modal@/,
  // ExecEnvironment and its agent: the local backend, transports and tools import core's plugin-kit.
  "the remote executor": /\/core\/dist\/backend-kit\.js$/,
  // "auto" loads these only when a run falls back to them (uds serves a local run).
  "a fallback transport": /\/transport-(stream|file)\/|@codecall\/transport-(stream|file)/,
  // Bundled into core's build: nine modules of its own otherwise.
  "the JSON Schema validator's modules": /@cfworker/,
  "the MCP package or SDK": /\/packages\/mcp\/|@codecall\/mcp|@modelcontextprotocol/,
  "the AI SDK": /\/packages\/ai-sdk\/|\/node_modules\/(ai|@ai-sdk)\//,
  "the TypeScript loader": /\/tsx\/|\/esbuild\/|\/typescript\//,
  OpenTelemetry: /@opentelemetry/,
  zod: /\/zod\//,
  "the terminal prompt": /^node:readline/,
  "an HTTP server": /^node:https?$/,
  // The CLI's chunks of other commands (the build names a chunk that main.ts imports after its module).
  "another command's code": /\/cli\/dist\/(mcp-command|tools-command|repl-command|approval-prompt)-/,
};

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), "codecall-cli-startup-"));
  await writeFile(path.join(dir, "hi.py"), 'print("hi")\n');
});
afterAll(() => rm(dir, { recursive: true, force: true }));

/** Runs `codecall run hi.py` with the recorder (and `imports`) and returns the modules it resolved. */
async function modulesOfRun(name: string, imports: string[] = [], env: NodeJS.ProcessEnv = {}): Promise<string[]> {
  const log = path.join(dir, `${name}.log`);
  await writeFile(log, "");
  const result = await runCli(["run", "hi.py"], {
    cwd: dir,
    env: { ...process.env, ...env, NODE_OPTIONS: [RECORDER, ...imports].map((url) => `--import=${url}`).join(" "), CODECALL_MODULE_LOG: log },
  });
  expect(result.stdout, result.stderr).toBe("hi\n");
  expect(result.code).toBe(0);
  return [...new Set((await readFile(log, "utf8")).split("\n").filter(Boolean))];
}

describe("codecall run on the local backend", () => {
  it("loads the local backend and its transport from the command's own build, and nothing only other runs or commands need", async () => {
    const modules = await modulesOfRun("plain");
    // The recorder sees the run's own modules: without these, an empty list would pass.
    const own = modules.filter((url) => url.startsWith("file:") && url.includes("/cli/dist/"));
    expect(own.some((url) => url.endsWith("/cli/dist/bin.cjs"))).toBe(true);
    expect(modules).toContain("node:child_process");
    // Carried in the build (see tsup.config.ts): not one module of core, the tools, the backend or
    // the transport from where they are installed, and the command's own in the loader alone (the
    // rest is one script, program.cjs, which the loader compiles, so no module loader sees it).
    expect(modules.filter((url) => url.startsWith("file:") && !url.includes("/cli/dist/") && !url.includes("/fixtures/"))).toEqual([]);
    expect(own.map((url) => path.basename(url))).toEqual(["bin.cjs"]);
    for (const [what, pattern] of Object.entries(NOT_NEEDED)) {
      expect(
        modules.filter((url) => pattern.test(url)),
        `${what} was loaded`,
      ).toEqual([]);
    }
  });

  it("still records spans when the process has OpenTelemetry set up", async () => {
    const spans = path.join(dir, "spans.log");
    await writeFile(spans, "");
    const modules = await modulesOfRun("traced", [OPEN_TELEMETRY_SETUP], { CODECALL_SPAN_LOG: spans });
    expect(modules.some((url) => url.includes("@opentelemetry"))).toBe(true);
    expect((await readFile(spans, "utf8")).split("\n")).toContain("codecall.run");
  });
});

describe("a plugin the command carries in its build", () => {
  it("is still taken from the project when the project installs its own", async () => {
    // A project pinning its own @codecall/backend-local: its copy serves the run, not the CLI's.
    const project = await mkdtemp(path.join(tmpdir(), "codecall-cli-project-"));
    try {
      const installed = path.join(project, "node_modules", "@codecall", "backend-local");
      await mkdir(installed, { recursive: true });
      await writeFile(
        path.join(installed, "package.json"),
        JSON.stringify({ name: "@codecall/backend-local", version: "0.0.0-project", type: "module", exports: "./index.js" }),
      );
      await writeFile(
        path.join(installed, "index.js"),
        'export function createEnvironment() { throw new Error("the project\'s own backend-local was used"); }\n',
      );
      await writeFile(path.join(project, "hi.py"), 'print("hi")\n');
      const result = await runCli(["run", "hi.py"], { cwd: project });
      expect(result.stdout).toBe("");
      expect(result.stderr).toContain("the project's own backend-local was used");
      expect(result.code).not.toBe(0);
    } finally {
      await rm(project, { recursive: true, force: true });
    }
  });
});
