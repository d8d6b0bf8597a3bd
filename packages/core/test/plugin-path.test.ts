import { describe, expect, it } from "vitest";
import { isModulePath, moduleUrlFromWorkingDirectory } from "../src/plugin-path.js";

describe("plugin paths", () => {
  it("tells a file path from a package name", () => {
    for (const specifier of ["./b.js", "../b.js", "/abs/b.js", "file:///abs/b.js", ".", ".."]) expect(isModulePath(specifier)).toBe(true);
    for (const specifier of ["@acme/backend", "acme-backend", "acme/sub", ".hidden-package"]) expect(isModulePath(specifier)).toBe(false);
  });

  it("makes a path a file URL against the working directory, escaping what a URL would read otherwise", () => {
    const cwd = process.cwd();
    expect(moduleUrlFromWorkingDirectory("./b.js")).toBe(new URL(`file://${cwd}/b.js`).href);
    expect(moduleUrlFromWorkingDirectory("/x/../y/a #1?%.js")).toBe("file:///y/a%20%231%3F%25.js");
    expect(moduleUrlFromWorkingDirectory("file:///z.js")).toBe("file:///z.js");
  });
});
