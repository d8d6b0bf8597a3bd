// tsx (TypeScript tool modules) is loaded only when a TypeScript module is given: a plain run, or
// one with JavaScript tools, does not pay for it.
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, beforeAll, expect, it } from "vitest";
import { runCli } from "./support.js";

const RECORDER = pathToFileURL(path.resolve(import.meta.dirname, "fixtures/record-modules.mjs")).href;
const TOOL = `export const shout = { name: "shout", description: "Shouts.", parameters: { type: "object", properties: { text: { type: "string" } }, required: ["text"] }, execute: async ({ text }) => text.toUpperCase() };\n`;

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), "codecall-cli-tsx-"));
  await writeFile(path.join(dir, "tools.mjs"), TOOL);
  await writeFile(path.join(dir, "tools.ts"), TOOL.replace("async ({ text })", "async ({ text }: { text: string })"));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

async function tsxModulesLoaded(args: string[], name: string): Promise<string> {
  const log = path.join(dir, `${name}.log`);
  await writeFile(log, "");
  const result = await runCli(args, {
    cwd: dir,
    stdin: "from codecall import *\nprint('ok')",
    env: { ...process.env, NODE_OPTIONS: `--import=${RECORDER}`, CODECALL_MODULE_LOG: log },
  });
  expect(result.stdout, result.stderr).toBe("ok\n");
  const modules = (await readFile(log, "utf8")).split("\n");
  return modules.filter((url) => url.includes("/tsx/")).join("\n");
}

it("a plain run and a run with a JavaScript tools module do not load tsx", async () => {
  expect(await tsxModulesLoaded(["run", "-"], "plain")).toBe("");
  expect(await tsxModulesLoaded(["run", "--tools", "./tools.mjs", "-"], "javascript")).toBe("");
});

it("a TypeScript tools module loads it (the recorder sees tsx when it is loaded)", async () => {
  expect(await tsxModulesLoaded(["run", "--tools", "./tools.ts", "-"], "typescript")).toContain("/tsx/");
});
