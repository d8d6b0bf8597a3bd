/**
 * What the guest sees when its arguments break a keyword the old validator skipped: a ToolError
 * "Invalid arguments: ..." naming the argument, the tool never run; and an answer, not a crash,
 * for arguments nested 100 000 levels deep.
 */
import { describe, expect, it } from "vitest";
import type { ToolDefinition } from "../src/tool.js";
import { call, frame, makeDispatcher, openConnection, send } from "./support/rpc.js";

const runs: unknown[] = [];
const createIssue: ToolDefinition = {
  name: "create_issue",
  description: "Creates an issue.",
  parameters: {
    $schema: "http://json-schema.org/draft-07/schema#",
    $ref: "#/definitions/Args",
    definitions: {
      Args: {
        type: "object",
        properties: {
          title: { type: "string", not: { const: "" } },
          labels: { type: "array", items: { type: "string" }, uniqueItems: true },
          estimate: { type: "number", multipleOf: 0.5 },
          due: { type: "string", format: "date" },
        },
        required: ["title"],
        additionalProperties: false,
      },
    },
  },
  execute: (args: unknown) => {
    runs.push(args);
    return "created";
  },
};

describe("RpcDispatcher: argument validation", () => {
  it("enforces $ref, not, uniqueItems, multipleOf and format, naming each argument", async () => {
    const connection = await openConnection(makeDispatcher({ tools: [createIssue] }));
    const response = await send(connection, call(1, "create_issue", { title: "", labels: ["bug", "bug"], estimate: 0.3, due: "soon" }));
    expect(response.error?.code).toBe(-32602);
    expect(response.error?.message).toBe(
      "Invalid arguments: 'title' must not match {\"const\":\"\"}; 'labels' must not contain duplicate items (items 0 and 1 are equal); " +
        "'estimate' must be a multiple of 0.5; 'due' must be a valid date",
    );
    expect(runs).toEqual([]);
    expect((await send(connection, call(2, "create_issue", { title: "Crash", due: "2026-01-31" }))).result).toBe("created");
  });

  it("answers arguments nested 100 000 levels deep with an error, and keeps serving", async () => {
    const connection = await openConnection(makeDispatcher({ tools: [createIssue] }));
    const deep = `${"[".repeat(100_000)}${"]".repeat(100_000)}`;
    const response = await send(
      connection,
      `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"create_issue","arguments":{"title":"x","labels":${deep}}}}`,
    );
    // Refused before parsing, by the dispatcher's depth limit (one limit with validation's).
    expect(response).toMatchObject({
      id: 3,
      error: { message: "Request nested too deeply: arguments may nest at most 64 levels of arrays/objects" },
    });
    expect((await send(connection, frame(4, "tools/call", { name: "create_issue", arguments: { title: "ok" } }))).result).toBe("created");
  });
});
