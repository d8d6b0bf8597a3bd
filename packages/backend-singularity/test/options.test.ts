import { describe, expect, it } from "vitest";
import { environmentOptions, parseSingularityOptions } from "../src/index.js";

describe("singularity options", () => {
  it("applies secure defaults", () => {
    expect(parseSingularityOptions({ image: "python.sif" })).toEqual({
      image: "python.sif",
      binds: [],
      containAll: true,
      writableTmpfs: true,
      fakeroot: false,
      startArgs: [],
      env: {},
      startTimeoutMs: 300_000,
      agent: true,
    });
  });

  it("takes CLI-typed values: one bind as a list, numbers as text", () => {
    expect(parseSingularityOptions({ image: "docker://python:3.12-slim", binds: "/data:/data:ro", startTimeoutMs: "5000", name: 42 })).toMatchObject({
      binds: ["/data:/data:ro"],
      startTimeoutMs: 5000,
      name: "42",
    });
  });

  it("reads -o pairs by the declared types: binds one a pair, env one entry a pair", () => {
    const input = environmentOptions.fromText([
      ["image", "a.sif"],
      ["binds", "/a"],
      ["binds", "/b:/b:ro"],
      ["env.MODE", "1"],
      ["containAll", "false"],
    ]);
    expect(parseSingularityOptions(input)).toMatchObject({ binds: ["/a", "/b:/b:ro"], env: { MODE: "1" }, containAll: false });
  });

  it("refuses what cannot work, naming the option", () => {
    const problems: [unknown, RegExp][] = [
      [{}, /needs either an image .* or a running instance/],
      [{ image: "a.sif", instance: "x" }, /not both/],
      [{ image: "a.sif", imgae: "b" }, /^Unknown singularity option "imgae"\. Did you mean "image"\? Known: image, instance, /],
      [{ image: "a.sif", name: "bad name" }, /option name must be letters, digits/],
      [{ instance: "x", name: "y" }, /option name names a new instance/],
      [{ image: "a.sif", binds: ["/a:relative"] }, /option binds wants "src\[:\/dest\[:ro\|rw\]\]"/],
      [{ image: "a.sif", binds: ["/a,/b"] }, /option binds wants/],
      [{ image: "a.sif", workdir: "work" }, /option workdir must be an absolute path/],
      [{ image: "a.sif", env: { "A-B": "1" } }, /option env has an invalid variable name/],
      [{ image: "a.sif", startTimeoutMs: 0 }, /option startTimeoutMs must be a whole number from 1 up/],
      [{ image: "a.sif", containAll: "no" }, /option containAll must be true or false/],
    ];
    for (const [options, message] of problems) expect(() => parseSingularityOptions(options), JSON.stringify(options)).toThrow(message);
  });
});
