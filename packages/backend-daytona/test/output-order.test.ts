import { describe, expect, it } from "vitest";
import { OutputOrder } from "../src/output-order.js";

const b64 = (text: string) => Buffer.from(text).toString("base64");

/** The bridge's lines for `chunks` of one stream, numbered from 1 after its first line, and its end mark. */
function bridgeLines(tag: "o" | "e", chunks: string[], status = 0): string[] {
  return [`${tag}0:.`, ...chunks.map((chunk, index) => `${tag}${index + 1}:${b64(chunk)}.`), `${tag}${chunks.length + 1}:!${status}`];
}

const labelled = (label: string, lines: string[]) => lines.map((line) => `${label}${line}\n`).join("");

function order(): { order: OutputOrder; out: () => string; err: () => string } {
  const chunks = { stdout: [] as Uint8Array[], stderr: [] as Uint8Array[] };
  const instance = new OutputOrder((stream, bytes) => chunks[stream].push(bytes));
  const text = (stream: "stdout" | "stderr") => Buffer.concat(chunks[stream]).toString();
  return { order: instance, out: () => text("stdout"), err: () => text("stderr") };
}

const OUT = bridgeLines("o", ["one\n", "two\n", "three\n"], 4);
const ERR = bridgeLines("e", ["warn\n"], 4);
const storedOut = OUT.map((line) => `${line}\n`).join("");
const storedErr = ERR.map((line) => `${line}\n`).join("");

describe("OutputOrder", () => {
  it("routes lines by their tag, whichever callback brought them, once each, and ends on both marks", () => {
    const { order: output, out, err } = order();
    const live = output.liveReader();
    // The stderr lines come through stdout's callback, as after a label the SDK misread.
    live("stdout", `${OUT.slice(0, 3).join("\n")}\n${ERR.join("\n")}\n`);
    live("stderr", `${OUT.slice(3).join("\n")}\n`);
    // A reopened stream replays the log from its start: nothing twice.
    output.liveReader()("stdout", `${OUT.join("\n")}\n${ERR.join("\n")}\n`);
    expect({ out: out(), err: err(), complete: output.complete, status: output.status, wanting: output.wanting }).toEqual({
      out: "one\ntwo\nthree\n",
      err: "warn\n",
      complete: true,
      status: 4,
      wanting: false,
    });
  });

  it("holds lines after a gap the live stream left, and fills it from a reliable read", () => {
    const { order: output, out, err } = order();
    const live = output.liveReader();
    // The stream dropped what came before the first label it recognised: o0, o1 and e0.
    live("stdout", `${[...OUT.slice(2), ...ERR.slice(1)].join("\n")}\n`);
    expect({ out: out(), err: err(), wanting: output.wanting, complete: output.complete }).toEqual({
      out: "",
      err: "",
      wanting: true,
      complete: false,
    });
    const since = output.mark();
    output.reliable(storedOut, storedErr, since);
    expect({ out: out(), err: err(), wanting: output.wanting, complete: output.complete }).toEqual({
      out: "one\ntwo\nthree\n",
      err: "warn\n",
      wanting: false,
      complete: true,
    });
  });

  it("fills from a stored log read while the stream went on, skipping what either brought before", () => {
    const { order: output, out } = order();
    const live = output.liveReader();
    live("stdout", `${OUT[2]}\n`);
    const since = output.mark();
    // The stored log was read when o0..o2 were there; the stream brings o3 meanwhile.
    live("stdout", `${OUT[3]}\n`);
    output.reliable(
      OUT.slice(0, 3)
        .map((line) => `${line}\n`)
        .join(""),
      "",
      since,
    );
    expect(out()).toBe("one\ntwo\nthree\n");
    output.reliable(storedOut, storedErr);
    expect(out()).toBe("one\ntwo\nthree\n");
    expect(output.complete).toBe(true);
  });

  it("reports a stored log that lacks a line the stream had passed", () => {
    const { order: output } = order();
    output.liveReader()("stdout", `${OUT[2]}\n`);
    const since = output.mark();
    expect(() => output.reliable(`${OUT[0]}\n${OUT[2]}\n`, "", since)).toThrow(/lacks stdout line 1, which its log stream had passed/);
  });

  it("takes raw lines only from reliable reads, on the stream the daemon says, once each", () => {
    const { order: output, err, out } = order();
    const live = output.liveReader();
    live("stdout", `${OUT[0]}\n${ERR[0]}\nbase64: not found\n`);
    expect(output.wanting).toBe(true);
    expect(err()).toBe("");
    const since = output.mark();
    const stderr = `${ERR[0]}\nbase64: not found\n`;
    output.reliable(`${OUT[0]}\n`, stderr, since);
    output.reliable(`${OUT[0]}\n`, stderr);
    expect({ out: out(), err: err(), wanting: output.wanting }).toEqual({ out: "", err: "base64: not found\n", wanting: false });
  });

  it("reads what the daemon's labels and a synchronous result hold, the same way", () => {
    const { order: output, out, err } = order();
    output.reliable(labelled("", OUT), labelled("", ERR));
    expect({ out: out(), err: err(), complete: output.complete, status: output.status }).toEqual({
      out: "one\ntwo\nthree\n",
      err: "warn\n",
      complete: true,
      status: 4,
    });
  });

  it("decodes a long log the same whichever callback brings each line and however the texts are split", () => {
    const chunks = Array.from({ length: 40 }, (_, index) => `${index}:${"x".repeat(index * 7)}\n`);
    const lines = [...bridgeLines("o", chunks), ...bridgeLines("e", chunks.slice(5))];
    for (const size of [1, 2, 3, 5, 64, 1000]) {
      const { order: output, out, err } = order();
      const live = output.liveReader();
      // The SDK gives each line whole to one callback (the wrong one after a label it misread),
      // in pieces of any size; the two callbacks' pieces interleave in time.
      const texts = { stdout: "", stderr: "" };
      lines.forEach((line, index) => (texts[index % 3 === 0 ? "stderr" : "stdout"] += `${line}\n`));
      for (let offset = 0; offset < Math.max(texts.stdout.length, texts.stderr.length); offset += size) {
        for (const via of ["stdout", "stderr"] as const) if (offset < texts[via].length) live(via, texts[via].slice(offset, offset + size));
      }
      expect({ out: out(), err: err(), complete: output.complete, wanting: output.wanting }, `size ${size}`).toEqual({
        out: chunks.join(""),
        err: chunks.slice(5).join(""),
        complete: true,
        wanting: false,
      });
    }
  });
});
