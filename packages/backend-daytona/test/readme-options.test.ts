import { readFile } from "node:fs/promises";
import { describe, expect, it } from "vitest";
import { environmentOptions } from "../src/index.js";

describe("README", () => {
  it("documents the options as the declaration has them", async () => {
    const readme = await readFile(new URL("../README.md", import.meta.url), "utf8");
    expect(readme).toContain(environmentOptions.markdownTable());
  });
});
