import { describe, expect, it } from "vitest";
import { CodecallError } from "../src/errors.js";
import { guestClientFor } from "../src/guest/guest-client-for.js";
import type { GuestLanguage } from "../src/transport.js";

describe("guestClientFor", () => {
  it("returns the client the transport ships for the language", () => {
    expect(guestClientFor("uds", "python", { python: "import socket" })).toBe("import socket");
  });

  it("refuses a language the transport ships no client for, naming both", () => {
    const ask = () => guestClientFor("file", "ruby" as GuestLanguage, { python: "import os" });
    expect(ask).toThrow("The file transport has no ruby client");
    try {
      ask();
    } catch (error) {
      expect(CodecallError.isInstance(error, "TRANSPORT_FAILED")).toBe(true);
    }
  });

  it("never answers with an inherited property of the clients object", () => {
    expect(() => guestClientFor("uds", "toString" as GuestLanguage, { python: "import socket" })).toThrow("The uds transport has no toString client");
  });
});
