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
  for (const byte of Buffer.from(text)) void output.script("stdout", Uint8Array.of(byte));
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
    void output.script("stdout", Buffer.from(`x\u001b]0;${"t".repeat(1000)}`));
    void output.script("stdout", Buffer.from("\u001b[3"));
    output.end();
    await new Promise(setImmediate);
    expect(stdout.text()).toBe(`x0;${"t".repeat(1000)}3`);
  });

  it("starts its own lines on a line of their own, after the script's unfinished one", async () => {
    const stdout = capture();
    const stderr = capture();
    const output = new TerminalOutput(stdout.stream, stderr.stream);
    void output.script("stderr", Buffer.from("half"));
    output.line("codecall: one");
    output.line("codecall: two \u001b[2Aup");
    await new Promise(setImmediate);
    expect(stderr.text()).toBe("half\ncodecall: one\ncodecall: two up\n");
  });

  it("passes plain chunks on as they are and decodes the rest, also where the two meet", async () => {
    const stdout = capture();
    const output = new TerminalOutput(stdout.stream, capture().stream);
    const euro = Buffer.from("€"); // E2 82 AC: a continuation byte in the C1 range
    const chunks = [
      Buffer.from("plain é € line\n"),
      // A character split across chunks, then plain text that must not pass the decoder by.
      Buffer.concat([Buffer.from("a"), euro.subarray(0, 1)]),
      euro.subarray(1, 2),
      Buffer.concat([euro.subarray(2), Buffer.from("b\n")]),
      Buffer.from("after\n"),
      // An unfinished character the next chunk (plain on its own) never finishes: U+FFFD, in its place.
      Buffer.concat([Buffer.from("c"), euro.subarray(0, 2)]),
      Buffer.from("xyz\n"),
      // Invalid bytes are shown as U+FFFD, never raw: 0x9B alone is a CSI to some terminals.
      Uint8Array.of(0x9b, 0x32, 0x4a, 0x0a),
      Buffer.from("C1 as UTF-8: \u009b2J, an escape \u001b[31mred\n"),
      Buffer.from("end"),
    ];
    for (const chunk of chunks) void output.script("stdout", chunk);
    output.end();
    await new Promise(setImmediate);
    expect(stdout.text()).toBe("plain é € line\na€b\nafter\nc\ufffdxyz\n\ufffd2J\nC1 as UTF-8: , an escape red\nend");
  });

  it("returns a wait once a stream's buffer is full, settled when it drains or closes", async () => {
    // A reader that takes nothing until told: the writable side fills at its high-water mark.
    const slow = new PassThrough({ highWaterMark: 16 });
    const output = new TerminalOutput(slow, capture().stream);
    expect(output.script("stdout", Buffer.from("short\n"))).toBeUndefined();
    const full = output.script("stdout", Buffer.from("x".repeat(64)));
    expect(full).toBeInstanceOf(Promise);
    // One wait, however many chunks come while the buffer is full (escaped ones too).
    expect(output.script("stdout", Buffer.from("\u001b[31mred\n"))).toBe(full);
    let drained = false;
    void full!.then(() => (drained = true));
    await new Promise(setImmediate);
    expect(drained).toBe(false);
    slow.resume();
    await full;
    expect(output.script("stdout", Buffer.from("more\n"))).toBeUndefined();

    const closing = new PassThrough({ highWaterMark: 16 });
    const closed = new TerminalOutput(closing, capture().stream).script("stdout", Buffer.from("y".repeat(64)))!;
    closing.destroy();
    await closed;
  });

  it("holds the script's output while a question is open and writes it, in order, once none is", async () => {
    const stdout = capture();
    const stderr = capture();
    const output = new TerminalOutput(stdout.stream, stderr.stream);
    output.asking(true);
    output.own("codecall: approve x()? ");
    const wait = output.script("stdout", Buffer.from("\rcovered? "));
    expect(wait).toBeInstanceOf(Promise);
    expect(output.script("stderr", Buffer.from("err\n"))).toBe(wait);
    await new Promise(setImmediate);
    expect(stdout.text()).toBe("");
    expect(stderr.text()).toBe("codecall: approve x()? ");
    output.asking(false);
    await wait;
    await new Promise(setImmediate);
    expect(stdout.text()).toBe("\rcovered? ");
    expect(stderr.text()).toBe("codecall: approve x()? err\n");
    // The end of a run writes whatever a question still held.
    output.asking(true);
    void output.script("stdout", Buffer.from("late\n"));
    output.end();
    await new Promise(setImmediate);
    expect(stdout.text()).toBe("\rcovered? late\n");
  });
});
