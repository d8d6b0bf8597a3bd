import { readFile } from "node:fs/promises";
import { describe, expect, it } from "vitest";

describe("README: Errors", () => {
  it("names every CodecallErrorCode", async () => {
    const source = await readFile(new URL("../src/errors.ts", import.meta.url), "utf8");
    const union = /export type CodecallErrorCode =([^;]+);/.exec(source)?.[1] ?? "";
    const codes = [...union.matchAll(/"([A-Z_]+)"/g)].map((match) => match[1]);
    expect(codes.length).toBeGreaterThan(10);
    const readme = await readFile(new URL("../README.md", import.meta.url), "utf8");
    const section = readme.slice(readme.indexOf("## Errors"), readme.indexOf("## Design choices"));
    expect(codes.filter((code) => !section.includes(`\`${code}\``))).toEqual([]);
  });
});
