/** This package's name and version, as MCP's `clientInfo` and `serverInfo` announce them. */
import { readFileSync } from "node:fs";

let version: string | undefined;

/** The version in this package's manifest (read once, when first needed). */
export function packageVersion(): string {
  version ??= (JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")) as { version: string }).version;
  return version;
}
