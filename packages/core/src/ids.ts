/** Random identifiers from the platform's CSPRNG (Web Crypto: Node, Deno, browsers alike). */

function randomHex(bytes: number): string {
  const buffer = new Uint8Array(bytes);
  globalThis.crypto.getRandomValues(buffer);
  return Array.from(buffer, (byte) => byte.toString(16).padStart(2, "0")).join("");
}

/** A short id for a run, safe in file names. */
export function newRunId(): string {
  return randomHex(8);
}

/** A per-run secret (256 bits). */
export function newRunToken(): string {
  return randomHex(32);
}
