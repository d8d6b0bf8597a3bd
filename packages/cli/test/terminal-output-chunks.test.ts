// TerminalOutput on plain streams: an escape sequence or a character split across chunks (one
// byte per chunk, the worst case) is removed or kept whole; an unfinished sequence is held only
// so far, and released as text without its ESC.
import { PassThrough } from "node:stream";
import { describe, expect, it } from "vitest";
import { TerminalOutput } from "../src/terminal-output.js";

function capture() {
  const stream = new PassThrough();
  let text = "";
  stream.on("data", (chunk: Buffer) => (text += chunk.toString()));
  return { stream, text: () => text };
}

function byteByByte(output: TerminalOutput, text: string): void {
  for (const byte of Buffer.from(text)) output.script("stdout", Uint8Array.of(byte));
}

describe("TerminalOutput", () => {
  it("removes sequences and keeps characters split across chunks, a byte at a time", async () => {
    const stdout = capture();
    const stderr = capture();
    const output = new TerminalOutput(stdout.stream, stderr.stream);
    byteByByte(output, "a\u001b[31mb\u001b]52;c;aGk=\u0007c\u001b]8;;x\u001b\\d é😀\u009b2Je\u001b(Bf");
    output.end();
    await new Promise(setImmediate);
    expect(stdout.text()).toBe("abcd é😀ef");
  });

  it("holds an unfinished sequence only so far, then shows the rest as text without its ESC", async () => {
    const stdout = capture();
    const output = new TerminalOutput(stdout.stream, capture().stream);
    output.script("stdout", Buffer.from(`x\u001b]0;${"t".repeat(1000)}`));
    output.script("stdout", Buffer.from("\u001b[3"));
    output.end();
    await new Promise(setImmediate);
    expect(stdout.text()).toBe(`x0;${"t".repeat(1000)}3`);
  });

  it("starts its own lines on a line of their own, after the script's unfinished one", async () => {
    const stdout = capture();
    const stderr = capture();
    const output = new TerminalOutput(stdout.stream, stderr.stream);
    output.script("stderr", Buffer.from("half"));
    output.line("codecall: one");
    output.line("codecall: two \u001b[2Aup");
    await new Promise(setImmediate);
    expect(stderr.text()).toBe("half\ncodecall: one\ncodecall: two up\n");
  });
});
