// The kinds of file the toolbox's mode strings (Go's FileMode.String()) name.
import { describe, expect, it } from "vitest";
import { fileKind } from "../src/file-kind.js";

describe("fileKind", () => {
  it("reads the type letters in front of the permission bits", () => {
    expect(fileKind({ isDir: false, mode: "-rw-r--r--" })).toBe("file");
    expect(fileKind({ isDir: false, mode: "urwxr-xr-x" })).toBe("file");
    expect(fileKind({ isDir: false, mode: "gtrwxrwxrwx" })).toBe("file");
    expect(fileKind({ isDir: true, mode: "drwxr-xr-x" })).toBe("directory");
    expect(fileKind({ isDir: false, mode: "prw-r--r--" })).toBe("fifo");
    expect(fileKind({ isDir: false, mode: "Srwxr-xr-x" })).toBe("socket");
    expect(fileKind({ isDir: false, mode: "Dcrw-rw-rw-" })).toBe("device");
    expect(fileKind({ isDir: false, mode: "Drw-rw----" })).toBe("device");
  });

  it("calls what it does not know other", () => {
    expect(fileKind({ isDir: false, mode: "?rw-r--r--" })).toBe("other");
    expect(fileKind({ isDir: false, mode: "Lrwxrwxrwx" })).toBe("other");
    expect(fileKind({ isDir: false, mode: "" })).toBe("other");
  });
});
