/**
 * Foreign tool names (MCP servers', AI SDK tool sets') map to importable names by one documented
 * rule: deterministic, collision-free within a list (async twins included), and every result is
 * accepted by the tool-set check, so the stub module can always be written.
 */
import { describe, expect, it } from "vitest";
import { pythonToolName, pythonToolNames } from "../src/guest/python-tool-names.js";
import { checkToolSet } from "../src/tool-set.js";
import type { ToolDefinition } from "../src/tool.js";

const toolsNamed = (names: readonly string[]): ToolDefinition[] =>
  names.map((name) => ({ name, description: "", parameters: { type: "object" }, execute: () => null }));

describe("pythonToolName", () => {
  it.each([
    ["get_issue", "get_issue"],
    ["getIssue", "getIssue"],
    ["get-issue", "get_issue"],
    ["repo.search/web", "repo_search_web"],
    ["--weird--name--", "weird_name"],
    ["café", "cafe"],
    ["日本", "tool"],
    ["3d-render", "tool_3d_render"],
    ["_private", "private"],
    ["", "tool"],
    ["print", "print_tool"],
    ["class", "class_tool"],
    ["None", "None_tool"],
    ["ToolError", "ToolError_tool"],
    ["call_tool", "call_tool_tool"],
  ])("%j → %j", (name, expected) => {
    expect(pythonToolName(name)).toBe(expected);
  });
});

describe("pythonToolNames", () => {
  it("keeps the first of two colliding names plain and numbers the rest, in order", () => {
    expect(pythonToolNames(["get-issue", "get_issue", "get.issue"])).toEqual(["get_issue", "get_issue_2", "get_issue_3"]);
  });

  it("never hands out a name that collides with another tool's async twin", () => {
    expect(pythonToolNames(["fetch", "fetch-async"])).toEqual(["fetch", "fetch_async_2"]);
    expect(pythonToolNames(["fetch_async", "fetch"])).toEqual(["fetch_async", "fetch_2"]);
  });

  it("joins the prefix and keeps clear of reserved names and their twins", () => {
    expect(pythonToolNames(["get-issue", "list"], { prefix: "github", reserved: ["github_list"] })).toEqual(["github_get_issue", "github_list_2"]);
    expect(pythonToolNames(["x"], { reserved: ["x_async"] })).toEqual(["x_2"]);
  });

  it("is deterministic", () => {
    const names = ["a-b", "a.b", "a_b", "print", "print-tool", "1", "", "", "x_async", "x"];
    expect(pythonToolNames(names)).toEqual(pythonToolNames([...names]));
  });

  it("always yields a tool set the stub module accepts, whatever the names", () => {
    const hostile = [
      "a-b",
      "a.b",
      "a_b",
      "a_b_2",
      "print",
      "print_tool",
      "1",
      "",
      "",
      "x_async",
      "x",
      "x",
      "_",
      "__",
      "ToolError",
      "call_tool_async",
    ];
    const mapped = pythonToolNames(hostile);
    expect(new Set(mapped).size).toBe(hostile.length);
    expect(() => checkToolSet(toolsNamed(mapped))).not.toThrow();
  });
});
