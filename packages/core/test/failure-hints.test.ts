/**
 * Failure hints are read off real Python tracebacks: each case runs python3 on a script that makes
 * the mistake (against a stand-in `codecall` module with the run's shape) and checks the hint.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { failureHint } from "../src/execute/failure-hints.js";

const context = { moduleName: "codecall", toolNames: ["get_issue", "search_tickets", "get_issue_async"] };

/** A module like the generated one: plain functions returning parsed values, and async twins. */
const STUB = `
def get_issue(number):
    return {"number": number, "title": "Crash"}
def search_tickets(query):
    return [{"id": "T-1"}]
async def get_issue_async(number):
    return get_issue(number)
`;

function tracebackOf(script: string): string {
  const dir = mkdtempSync(join(tmpdir(), "codecall-hints-"));
  writeFileSync(join(dir, "codecall.py"), STUB);
  writeFileSync(join(dir, "script.py"), script);
  const run = spawnSync("python3", ["-B", "script.py"], { cwd: dir, encoding: "utf8", env: { PATH: process.env.PATH, PYTHONPATH: dir } });
  expect(run.status).not.toBe(0);
  return run.stderr;
}

describe("failureHint", () => {
  it.each([
    [
      "the stub under another name",
      "from hermes_tools import get_issue",
      /tools are in the `codecall` module: from codecall import get_issue, search_tickets/,
    ],
    ["the stub as a package", "from codecall.tools import get_issue", /`codecall` itself, not a package/],
    ["a tool as a module", "import search_tickets", /tools are in the `codecall` module/],
    ["a missing third-party module", "import pandas_not_here", /`pandas_not_here` is not installed/],
    ["a name the module lacks", "from codecall import get_isue", /`codecall` has no `get_isue`\. Did you mean `get_issue`\?/],
    ["json.loads on a returned dict", "import json\nfrom codecall import get_issue\njson.loads(get_issue(1))", /not JSON text/],
    ["a dict used as a string", "from codecall import get_issue\nget_issue(1).split()", /a dict, not a string/],
    ["a list concatenated to a string", "from codecall import search_tickets\nprint('found: ' + search_tickets('x'))", /a list, not a string/],
    ["an _async call without await", "from codecall import get_issue_async\nprint(get_issue_async(1)['title'])", /returns a coroutine: `await` it/],
  ])("%s", (_, script, hint) => {
    expect(failureHint(tracebackOf(script), context)).toMatch(hint);
  });

  it("gives none for other failures, or for the patterns printed rather than raised", () => {
    expect(failureHint(tracebackOf("raise ValueError('boom')"), context)).toBeUndefined();
    expect(failureHint(tracebackOf("1/0"), context)).toBeUndefined();
    expect(failureHint("", context)).toBeUndefined();
    // Printed early, then a different failure at the end: only the traceback's last lines count.
    const printed = tracebackOf(
      "import sys\nsys.stderr.write(\"ModuleNotFoundError: No module named 'tools'\\n\" + 'x\\n' * 20)\nraise KeyError('k')",
    );
    expect(failureHint(printed, context)).toBeUndefined();
  });
});
