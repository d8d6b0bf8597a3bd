import { describe, expect, it } from "vitest";
import { CodecallError } from "@codecall/core";
import { DEFAULT_PIDS_LIMIT, environmentOptions } from "../src/docker-options.js";
import { parseDockerOptions, parseMemory } from "../src/parse-options.js";

const invalid = (raw: unknown) => {
  try {
    parseDockerOptions(raw);
  } catch (error) {
    expect(CodecallError.isInstance(error, "INVALID_OPTIONS")).toBe(true);
    return (error as Error).message;
  }
  throw new Error("expected INVALID_OPTIONS");
};

describe("parseDockerOptions", () => {
  it("fills in the defaults", () => {
    expect(parseDockerOptions({ image: "python:3.12" })).toEqual({
      image: "python:3.12",
      pull: false,
      pidsLimit: DEFAULT_PIDS_LIMIT,
      readOnly: false,
      capDrop: ["ALL"],
      capAdd: [],
      keepContainer: false,
      agent: true,
      engineTimeoutMs: 10_000,
    });
  });

  it("converts limits to the API's units", () => {
    const parsed = parseDockerOptions({ image: "x", memory: "512m", cpus: 1.5, pidsLimit: -1 });
    expect(parsed).toMatchObject({ memoryBytes: 512 * 1024 ** 2, nanoCpus: 1_500_000_000, pidsLimit: -1 });
  });

  it("takes what the CLI's -o pairs produce: numbers for strings, one string for a list, typed record values", () => {
    const parsed = parseDockerOptions({ image: "x", user: 1000, name: 42, capAdd: "CHOWN", env: { N: 1, B: true }, labels: { team: "ml" } });
    expect(parsed).toMatchObject({ user: "1000", name: "42", capAdd: ["CHOWN"], env: { N: "1", B: "true" }, labels: { team: "ml" } });
  });

  it("names unknown options and the one meant, so a typo does not pass silently", () => {
    expect(invalid({ image: "x", imgae: "y" })).toMatch(/^Unknown docker option "imgae"\. Did you mean "image"\? Known: .*image/);
    expect(invalid({ image: "x", pidLimit: 5 })).toMatch(/^Unknown docker option "pidLimit"\. Did you mean "pidsLimit"\?/);
  });

  it("reads -o pairs by the declared types: a numeric name stays text, a list grows a pair at a time", () => {
    const input = environmentOptions.fromText([
      ["image", "x"],
      ["name", "007"],
      ["memory", "512m"],
      ["cpus", "1.5"],
      ["capAdd", "CHOWN"],
      ["capAdd", "SETUID"],
      ["labels.com.example/team", "ml"],
      ["readOnly", "true"],
    ]);
    expect(parseDockerOptions(input)).toMatchObject({
      name: "007",
      memoryBytes: 512 * 1024 ** 2,
      nanoCpus: 1_500_000_000,
      capAdd: ["CHOWN", "SETUID"],
      labels: { "com.example/team": "ml" },
      readOnly: true,
    });
  });

  it("needs exactly one of image and container", () => {
    expect(invalid({})).toMatch(/needs an image .* or an existing container/);
    expect(invalid({ image: "x", container: "y" })).toMatch(/either image .* or container/);
    expect(parseDockerOptions({ container: "dev" }).container).toBe("dev");
  });

  it("refuses values of the wrong shape, naming the option", () => {
    expect(invalid({ image: "x", cpus: 0 })).toMatch(/docker option cpus/);
    expect(invalid({ image: "x", pidsLimit: 0 })).toMatch(/docker option pidsLimit/);
    expect(invalid({ image: "x", readOnly: "yes" })).toMatch(/docker option readOnly must be true or false/);
    expect(invalid({ image: "x", mounts: ["relative"] })).toMatch(/docker option mounts wants/);
    expect(invalid({ image: "x", env: { "BAD-NAME": "1" } })).toMatch(/docker option env has an invalid variable name/);
    expect(invalid({ image: "x", labels: { a: { nested: 1 } } })).toMatch(/docker option labels/);
    expect(invalid("image=x")).toMatch(/must be an object/);
  });

  it("accepts docker run -v style mounts", () => {
    expect(parseDockerOptions({ image: "x", mounts: ["/srv/data:/data:ro", "cache:/root/.cache", "/a:/b:rw,Z"] }).mounts).toHaveLength(3);
  });
});

describe("parseMemory", () => {
  it("reads bytes and units of 1024", () => {
    expect(parseMemory(64 * 1024 ** 2)).toBe(64 * 1024 ** 2);
    expect(parseMemory("512m")).toBe(512 * 1024 ** 2);
    expect(parseMemory("2G")).toBe(2 * 1024 ** 3);
    expect(parseMemory("1.5g")).toBe(1.5 * 1024 ** 3);
    expect(parseMemory("256MiB")).toBe(256 * 1024 ** 2);
  });

  it("refuses nonsense and amounts the engine would refuse", () => {
    expect(() => parseMemory("lots")).toThrow(/docker option memory/);
    expect(() => parseMemory("1m")).toThrow(/at least 6m/);
  });
});
