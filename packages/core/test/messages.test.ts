import { describe, expect, it } from "vitest";
import { encodeFrame, parseRequest, rpcError, RpcErrorCode, rpcResult, sniffRequestId } from "../src/protocol/messages.js";

function failure(line: string) {
  const parsed = parseRequest(line);
  if (parsed.ok) throw new Error(`expected a failure for ${line}`);
  return parsed.response;
}

describe("parseRequest", () => {
  it("accepts a well-formed request with a numeric id", () => {
    const parsed = parseRequest('{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"t","arguments":{"a":1}}}');
    expect(parsed).toEqual({
      ok: true,
      request: { jsonrpc: "2.0", id: 7, method: "tools/call", params: { name: "t", arguments: { a: 1 } } },
    });
  });

  it("accepts string ids, negative integer ids and a missing params", () => {
    expect(parseRequest('{"jsonrpc":"2.0","id":"abc","method":"hello"}')).toEqual({
      ok: true,
      request: { jsonrpc: "2.0", id: "abc", method: "hello", params: undefined },
    });
    const negative = parseRequest('{"jsonrpc":"2.0","id":-3,"method":"m","params":{}}');
    expect(negative.ok && negative.request.id).toBe(-3);
    const maxLength = "x".repeat(128);
    const long = parseRequest(JSON.stringify({ jsonrpc: "2.0", id: maxLength, method: "m" }));
    expect(long.ok && long.request.id).toBe(maxLength);
  });

  it("answers garbage with a parse error and a null id", () => {
    const response = failure("{not json");
    expect(response.id).toBeNull();
    expect(response.error.code).toBe(RpcErrorCode.ParseError);
    expect(response.error.code).toBe(-32700);
    expect(response.error.message).toMatch(/^Parse error: /);
    expect(failure("").error.code).toBe(-32700);
  });

  it.each(['"a string"', "42", "null", "true"])("rejects non-object JSON %s as an invalid request", (line) => {
    const response = failure(line);
    expect(response.id).toBeNull();
    expect(response.error.code).toBe(-32600);
    expect(response.error.message).toContain("must be a JSON object");
  });

  it("rejects batches (arrays)", () => {
    const response = failure('[{"jsonrpc":"2.0","id":1,"method":"hello"}]');
    expect(response.id).toBeNull();
    expect(response.error.code).toBe(RpcErrorCode.InvalidRequest);
    expect(response.error.message).toContain("batches are not supported");
  });

  it.each([
    ["missing", '{"jsonrpc":"2.0","method":"m"}'],
    ["null", '{"jsonrpc":"2.0","id":null,"method":"m"}'],
    ["a float", '{"jsonrpc":"2.0","id":1.5,"method":"m"}'],
    ["an unsafe integer", '{"jsonrpc":"2.0","id":9007199254740993,"method":"m"}'],
    ["an empty string", '{"jsonrpc":"2.0","id":"","method":"m"}'],
    ["a string of 129 characters", JSON.stringify({ jsonrpc: "2.0", id: "x".repeat(129), method: "m" })],
    ["an object", '{"jsonrpc":"2.0","id":{"a":1},"method":"m"}'],
    ["a boolean", '{"jsonrpc":"2.0","id":true,"method":"m"}'],
  ])("rejects an id that is %s, answering with a null id", (_, line) => {
    const response = failure(line);
    expect(response.id).toBeNull();
    expect(response.error.code).toBe(-32600);
    expect(response.error.message).toContain('"id"');
  });

  it("rejects a missing or wrong jsonrpc, keeping a valid id", () => {
    const missing = failure('{"id":4,"method":"m"}');
    expect(missing.id).toBe(4);
    expect(missing.error.code).toBe(-32600);
    expect(missing.error.message).toContain('"jsonrpc": "2.0"');
    expect(failure('{"jsonrpc":"1.0","id":"q","method":"m"}').id).toBe("q");
    expect(failure('{"jsonrpc":2,"id":1,"method":"m"}').error.code).toBe(-32600);
  });

  it.each([
    ["missing", '{"jsonrpc":"2.0","id":5}'],
    ["empty", '{"jsonrpc":"2.0","id":5,"method":""}'],
    ["a number", '{"jsonrpc":"2.0","id":5,"method":3}'],
  ])("rejects a method that is %s", (_, line) => {
    const response = failure(line);
    expect(response.id).toBe(5);
    expect(response.error.code).toBe(-32600);
    expect(response.error.message).toContain('"method"');
  });

  it.each([
    ["a string", '"x"'],
    ["a number", "1"],
    ["null", "null"],
    ["an array", "[1,2]"],
  ])("rejects params that are %s", (_, params) => {
    const response = failure(`{"jsonrpc":"2.0","id":6,"method":"m","params":${params}}`);
    expect(response.id).toBe(6);
    expect(response.error.code).toBe(-32600);
    expect(response.error.message).toBe('Invalid request: "params" must be an object');
  });
});

describe("sniffRequestId", () => {
  it("reads numeric and string ids from the start of a frame", () => {
    expect(sniffRequestId('{"jsonrpc":"2.0","id":42,"method":"tools/call","params":{"name":"x","arguments":{"data":"')).toBe(42);
    expect(sniffRequestId('{"jsonrpc":"2.0","id":-7,"method"')).toBe(-7);
    expect(sniffRequestId('{"jsonrpc":"2.0","id":"req-9","method":"tools/call"')).toBe("req-9");
    expect(sniffRequestId('  { "jsonrpc" : "2.0" , "id" : 3 , "method"')).toBe(3);
    expect(sniffRequestId('{"jsonrpc":"2.0","id":12}')).toBe(12);
  });

  it("returns null when the prefix does not lead with jsonrpc and id", () => {
    expect(sniffRequestId('{"id":1,"jsonrpc":"2.0"')).toBeNull();
    expect(sniffRequestId('{"jsonrpc":"2.0","method":"m","id":1')).toBeNull();
    expect(sniffRequestId("garbage")).toBeNull();
    expect(sniffRequestId("")).toBeNull();
    expect(sniffRequestId('{"jsonrpc":"2.0","id":')).toBeNull();
  });

  it("does not misread an id that is not a valid request id", () => {
    // A truncated read of these would hand the error to another caller's id (1, 12, ...).
    expect(sniffRequestId('{"jsonrpc":"2.0","id":1.5,"method":"m"')).toBeNull();
    expect(sniffRequestId('{"jsonrpc":"2.0","id":12e3,"method":"m"')).toBeNull();
    expect(sniffRequestId('{"jsonrpc":"2.0","id":9999999999999999,"method":"m"')).toBeNull();
    expect(sniffRequestId('{"jsonrpc":"2.0","id":123')).toBeNull(); // the number may go on
    expect(sniffRequestId('{"jsonrpc":"2.0","id":"a\\"b","method":"m"')).toBeNull();
    expect(sniffRequestId(`{"jsonrpc":"2.0","id":"${"x".repeat(129)}","method":"m"`)).toBeNull();
  });
});

describe("encodeFrame", () => {
  it("ends with exactly one newline and has no raw newline inside", () => {
    const frame = encodeFrame(rpcResult(1, { text: "line one\nline two\r\n\n", nested: ["a\nb"] }));
    expect(frame.endsWith("\n")).toBe(true);
    expect(frame.endsWith("\n\n")).toBe(false);
    expect(frame.indexOf("\n")).toBe(frame.length - 1);
    expect(frame).not.toContain("\r");
    expect(JSON.parse(frame)).toEqual({ jsonrpc: "2.0", id: 1, result: { text: "line one\nline two\r\n\n", nested: ["a\nb"] } });
  });

  it("encodes error responses and undefined results as null", () => {
    expect(encodeFrame(rpcError(null, -32700, "bad\nthing"))).toBe('{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"bad\\nthing"}}\n');
    expect(encodeFrame(rpcResult("a", undefined))).toBe('{"jsonrpc":"2.0","id":"a","result":null}\n');
    expect(encodeFrame(rpcError(3, -32602, "m", { issues: ["x"] }))).toBe(
      '{"jsonrpc":"2.0","id":3,"error":{"code":-32602,"message":"m","data":{"issues":["x"]}}}\n',
    );
  });

  it("carries only well-formed Unicode: a lone surrogate (a string cut inside an emoji) becomes U+FFFD", () => {
    const cut = "smile 😀".slice(0, 7);
    const frame = encodeFrame(rpcResult(1, { [cut]: [cut, "\udc00x", "😀 whole", "\u0000 NUL is kept"] }));
    expect(JSON.parse(frame)).toEqual({
      jsonrpc: "2.0",
      id: 1,
      result: { "smile \ufffd": ["smile \ufffd", "\ufffdx", "😀 whole", "\u0000 NUL is kept"] },
    });
    // Guest decoders see no surrogate escape either: Python's json would rebuild the lone surrogate from it.
    expect(frame).not.toMatch(/\\u[dD][89a-fA-F]/);
    expect(encodeFrame(rpcError(2, -32004, `bad ${cut}`))).toBe('{"jsonrpc":"2.0","id":2,"error":{"code":-32004,"message":"bad smile \\ufffd"}}\n');
  });

  it("leaves a backslash followed by the text of a surrogate escape as it is", () => {
    const text = "\\ud800 and \\\ud800";
    expect((JSON.parse(encodeFrame(rpcResult(1, text))) as { result: string }).result).toBe("\\ud800 and \\\ufffd");
  });
});
