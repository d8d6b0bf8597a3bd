import { describe, expect, it } from "vitest";
import { completeLines, demultiplexLog, LogLines, parseLine, StreamDecoder } from "../src/output-decoder.js";

function decoder(): { decoder: StreamDecoder; text: () => string; bytes: () => Uint8Array } {
  const chunks: Uint8Array[] = [];
  const instance = new StreamDecoder((bytes) => chunks.push(bytes));
  const bytes = () => new Uint8Array(Buffer.concat(chunks));
  return { decoder: instance, text: () => new TextDecoder().decode(bytes()), bytes };
}

const encoded = (text: string) => Buffer.from(text).toString("base64");

describe("parseLine", () => {
  it("reads the bridge's numbered lines of either stream, data and end marks", () => {
    expect(parseLine(`o12:${encoded("ab")}.`)).toEqual({ kind: "bridge", stream: "stdout", seq: 12, payload: `${encoded("ab")}.` });
    expect(parseLine("e0:.")).toEqual({ kind: "bridge", stream: "stderr", seq: 0, payload: "." });
    expect(parseLine("e7:!130")).toEqual({ kind: "bridge", stream: "stderr", seq: 7, payload: "!130" });
  });

  it("takes anything malformed as raw text and drops echoes of our input", () => {
    for (const line of [
      "codecall: cannot create a private directory",
      "o12",
      "o:QUJD",
      "ox:QUJD",
      "o1:QU JD",
      "o1:!x",
      "o1:QUJD.o2:QUJD.",
      "q1:QUJD",
      "",
    ]) {
      expect(parseLine(line), line).toEqual({ kind: "raw", text: line });
    }
    expect(parseLine(">aGVsbG8K")).toBeUndefined();
  });
});

describe("LogLines", () => {
  it("keeps lines whole across any split, per callback, and drops leaked label bytes", () => {
    const lines = new LogLines();
    const text = "o1:QUJD.\n\x02e1:QUJD.\n\x01\x01o2:!0\n";
    const seen = [...text].flatMap((char) => lines.push("stderr", char).lines);
    expect(seen).toEqual(["o1:QUJD.", "e1:QUJD.", "o2:!0"]);
    // A partial line on one callback does not join text of the other.
    expect(lines.push("stdout", "o3:QU").lines).toEqual([]);
    expect(lines.push("stderr", "e4:QUJD.\n").lines).toEqual(["e4:QUJD."]);
    expect(lines.push("stdout", "JD.\n").lines).toEqual(["o3:QUJD."]);
  });

  it("drops a partial line that outgrows the bound, and says so", () => {
    const lines = new LogLines();
    expect(lines.push("stdout", "x".repeat(1024 * 1024))).toEqual({ lines: [], overflowed: false });
    expect(lines.push("stdout", "yy")).toEqual({ lines: [], overflowed: true });
    expect(lines.push("stdout", "z\no1:.\n")).toEqual({ lines: ["z", "o1:."], overflowed: false });
  });

  it("takes only the complete lines of a stored log", () => {
    expect(completeLines("o1:QUJD.\ne1:!0\no2:QU")).toEqual(["o1:QUJD.", "e1:!0"]);
    expect(completeLines("")).toEqual([]);
  });
});

describe("StreamDecoder", () => {
  it("decodes chunks of several lines, binary-safe, and reads the end mark", () => {
    const { decoder: out, bytes } = decoder();
    const data = Uint8Array.from({ length: 256 }, (_, index) => index);
    const base64 = Buffer.from(data).toString("base64");
    out.line(".");
    out.line(base64.slice(0, 76));
    out.line(`${base64.slice(76)}.`);
    out.line(`${encoded("x")}.`);
    out.line("!3");
    out.line(`${encoded("after")}.`);
    expect([...bytes()]).toEqual([...data, 120]);
    expect(out.ended).toBe(true);
    expect(out.status).toBe(3);
  });

  it("decodes what it holds when the stream ends without its mark, and passes raw lines in order", () => {
    const { decoder: out, text } = decoder();
    out.line(encoded("ABC"));
    out.raw("Killed");
    out.line(encoded("DEF"));
    out.flush();
    expect(text()).toBe("ABCKilled\nDEF");
    expect(out.ended).toBe(false);
  });

  it("holds a bounded amount for a chunk that never closes", () => {
    const { decoder: out, bytes } = decoder();
    for (let index = 0; index < 20; index += 1) out.line("QUJD".repeat(20_000));
    expect(bytes().length).toBeGreaterThan(60_000 * 10);
  });
});

describe("demultiplexLog", () => {
  it("splits a labelled combined log", () => {
    expect(demultiplexLog("\x01\x01\x01out 1\n\x02\x02\x02err\n\x01\x01\x01out 2\n")).toEqual({ stdout: "out 1\nout 2\n", stderr: "err\n" });
  });
});
