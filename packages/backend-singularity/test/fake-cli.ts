/**
 * Puts the fake apptainer/singularity CLI (test/fake-cli, a stand-in for a binary Debian 12 cannot
 * install) first on PATH with its own state dir, before any environment is made, and reads back
 * the calls it logged.
 */
import { readFileSync } from "node:fs";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

export const fakeCliDir = path.join(path.dirname(fileURLToPath(import.meta.url)), "fake-cli");
export const fakeState = mkdtempSync(path.join(tmpdir(), "codecall-fake-apptainer-"));
process.env.PATH = `${fakeCliDir}:${process.env.PATH}`;
process.env.FAKE_APPTAINER_STATE = fakeState;

/** Every CLI call so far, as argv lists. */
export function cliCalls(): string[][] {
  const text = readFileSync(path.join(fakeState, "calls.jsonl"), "utf8");
  return text
    .trim()
    .split("\n")
    .map((line) => (JSON.parse(line) as { argv: string[] }).argv);
}

/** The calls that concern one instance. */
export function callsFor(instance: string): string[][] {
  return cliCalls().filter((argv) => argv.includes(instance) || argv.includes(`instance://${instance}`));
}

/** An "image": the fake only checks that the path exists. */
export const FAKE_IMAGE = fakeCliDir;
