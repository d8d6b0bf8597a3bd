import { describe, expect, it } from "vitest";
import { demultiplexLog, LogLines, StreamDecoder } from "../src/output-decoder.js";

function decoder(): { decoder: StreamDecoder; text: () => string; bytes: () => Uint8Array } {
  const chunks: Uint8Array[] = [];
  const instance = new StreamDecoder((bytes) => chunks.push(bytes));
  const bytes = () => new Uint8Array(Buffer.concat(chunks));
  return { decoder: instance, text: () => new TextDecoder().decode(bytes()), bytes };
}

const encoded = (text: string) => Buffer.from(text).toString("base64");

describe("LogLines", () => {
  it("routes lines by their tag, whichever stream brought them, and drops leaked label bytes", () => {
    const lines = new LogLines();
    // What the SDK hands over when a log message ends right after a stderr label: one label byte
    // leaks into stdout's text, and the stderr line (with the rest of its label) arrives on stdout too.
    expect(lines.push("stdout", `o${encoded("a")}.\n\x02`)).toEqual([{ route: "stdout", content: `${encoded("a")}.` }]);
    expect(lines.push("stdout", `\x02\x02e${encoded("b")}.\no!0\n`)).toEqual([
      { route: "stderr", content: `${encoded("b")}.` },
      { route: "stdout", content: "!0" },
    ]);
  });

  it("keeps lines whole across any split, and passes untagged lines as raw text of their stream", () => {
    const lines = new LogLines();
    const text = "codecall: cannot create a private directory\noQUJD.\n>aGVsbG8K\n";
    const routed = [...text].flatMap((char) => lines.push("stderr", char));
    expect(routed).toEqual([
      { route: "raw-stderr", content: "codecall: cannot create a private directory" },
      { route: "stdout", content: "QUJD." },
    ]);
  });

  it("lets a line that never ends go as raw text once it outgrows the bound", () => {
    const lines = new LogLines();
    expect(lines.push("stdout", "x".repeat(1024 * 1024))).toEqual([]);
    expect(lines.push("stdout", "yy")).toEqual([{ route: "raw-stdout", content: `${"x".repeat(1024 * 1024)}yy` }]);
  });
});

describe("StreamDecoder", () => {
  it("decodes chunks of several lines, binary-safe, and reads the end mark", () => {
    const { decoder: out, bytes } = decoder();
    const data = Uint8Array.from({ length: 256 }, (_, index) => index);
    const base64 = Buffer.from(data).toString("base64");
    out.line(base64.slice(0, 76));
    out.line(`${base64.slice(76)}.`);
    out.line(`${encoded("x")}.`);
    out.line("!3");
    out.line(`${encoded("after")}.`);
    expect([...bytes()]).toEqual([...data, 120]);
    expect(out.ended).toBe(true);
    expect(out.status).toBe(3);
  });

  it("gives back as text what never became a chunk, and raw lines in order", () => {
    const { decoder: out, text } = decoder();
    out.line("QUJD");
    out.raw("Killed");
    out.line("REVG");
    out.flush();
    expect(text()).toBe("QUJD\nKilled\nREVG\n");
    expect(out.ended).toBe(false);
  });

  it("holds a bounded amount for a chunk that never closes", () => {
    const { decoder: out, bytes } = decoder();
    for (let index = 0; index < 20; index += 1) out.line("QUJD".repeat(20_000));
    expect(bytes().length).toBeGreaterThan(80_000 * 10);
  });
});

describe("demultiplexLog", () => {
  it("splits a labelled combined log", () => {
    expect(demultiplexLog("\x01\x01\x01out 1\n\x02\x02\x02err\n\x01\x01\x01out 2\n")).toEqual({ stdout: "out 1\nout 2\n", stderr: "err\n" });
  });
});
