/**
 * Host key verification, on by default: the key the server presents must be listed for it in a
 * known_hosts file, or match a pinned SHA256 fingerprint. ssh2 only asks "accept this key?"; this
 * module answers and, on refusal, keeps a precise explanation (host, port, presented fingerprint,
 * what was expected) so the connection error can say more than "Host denied".
 */
import { createHash } from "node:crypto";
import { readFile } from "node:fs/promises";
import { CodecallError } from "@codecall/core";
import { findKnownHostKeys, knownHostsName, type KnownHostKey } from "./known-hosts.js";

/** How to decide whether a host key is the right one. */
export type HostKeyPolicy = { kind: "known-hosts"; path: string } | { kind: "fingerprint"; fingerprint: string } | { kind: "insecure" };

/** A verdict source for one connection attempt. */
export interface HostKeyCheck {
  /** Passed to ssh2 as `hostVerifier`: true accepts the presented key. */
  verify(key: Buffer): boolean;
  /** Why the last `verify` refused, as the error to report. */
  readonly failure: CodecallError | undefined;
  /**
   * Host key algorithms to offer, when known_hosts lists keys of particular types for this host:
   * the server then presents a key we can check instead of one we have never seen (OpenSSH does the same).
   */
  readonly algorithms: string[] | undefined;
}

/** ssh2 1.17's host key algorithms for each key type a known_hosts line may hold. */
const ALGORITHMS_BY_KEY_TYPE: Readonly<Record<string, readonly string[]>> = {
  "ssh-ed25519": ["ssh-ed25519"],
  "ecdsa-sha2-nistp256": ["ecdsa-sha2-nistp256"],
  "ecdsa-sha2-nistp384": ["ecdsa-sha2-nistp384"],
  "ecdsa-sha2-nistp521": ["ecdsa-sha2-nistp521"],
  "ssh-rsa": ["rsa-sha2-512", "rsa-sha2-256", "ssh-rsa"],
};

/** `SHA256:<base64 without padding>`, as `ssh-keygen -l` prints it. */
export function fingerprintOf(key: Buffer): string {
  return `SHA256:${createHash("sha256").update(key).digest("base64").replace(/=+$/, "")}`;
}

/** Normalises a user-given fingerprint; rejects anything that is not a SHA256 one. */
export function parseFingerprint(value: string): string {
  const match = /^SHA256:([A-Za-z0-9+/]{43})=?$/.exec(value.trim());
  if (!match) {
    throw new CodecallError(
      "INVALID_OPTIONS",
      `ssh option hostKeyFingerprint must look like SHA256:<43 base64 characters>, as \`ssh-keygen -lf <key>\` prints it`,
    );
  }
  return `SHA256:${match[1]}`;
}

/** Prepares the check for one connection attempt (reads known_hosts afresh each time). */
export async function prepareHostKeyCheck(policy: HostKeyPolicy, host: string, port: number): Promise<HostKeyCheck> {
  if (policy.kind === "insecure") return { verify: () => true, failure: undefined, algorithms: undefined };
  let failure: CodecallError | undefined;
  const refuse = (key: Buffer, reason: string, expected: string): false => {
    failure = new CodecallError(
      "ENVIRONMENT_FAILED",
      `ssh: host key verification failed for ${host}:${port}: ${reason}. The server presented ${keyType(key)} ${fingerprintOf(key)}; ${expected}.`,
      { details: { host, port, presentedKeyType: keyType(key), presentedFingerprint: fingerprintOf(key) } },
    );
    return false;
  };
  if (policy.kind === "fingerprint") {
    return {
      get failure() {
        return failure;
      },
      algorithms: undefined,
      verify: (key) =>
        fingerprintOf(key) === policy.fingerprint || refuse(key, "the key does not match the pinned fingerprint", `expected ${policy.fingerprint}`),
    };
  }
  const file = policy.path;
  const name = knownHostsName(host, port);
  const known = await readKnownHosts(file, name);
  return {
    get failure() {
      return failure;
    },
    algorithms: algorithmsFor(known),
    verify(key) {
      const revoked = known.find((entry) => entry.revoked && entry.key.equals(key));
      if (revoked) return refuse(key, "that key is marked @revoked", `see line ${revoked.line} of ${file}`);
      const listed = known.filter((entry) => !entry.revoked);
      if (listed.some((entry) => entry.key.equals(key))) return true;
      if (listed.length === 0) {
        return refuse(
          key,
          `${name} is not in ${file}`,
          `if that is the right key, add it (ssh-keyscan -p ${port} ${host} >> ${file}) or pin it with hostKeyFingerprint`,
        );
      }
      const expected = listed.map((entry) => `${entry.type} ${fingerprintOf(entry.key)} (line ${entry.line})`).join(", ");
      return refuse(
        key,
        `the key does not match ${file}: the host key changed, or someone is intercepting the connection`,
        `${file} lists ${expected}`,
      );
    },
  };
}

async function readKnownHosts(path: string, name: string): Promise<KnownHostKey[]> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (error) {
    throw new CodecallError(
      "INVALID_OPTIONS",
      `ssh: cannot read the known_hosts file ${path} (${(error as NodeJS.ErrnoException).code ?? "unreadable"}). ` +
        "Give knownHostsPath, pin the key with hostKeyFingerprint, or opt out of verification with insecureSkipHostKeyCheck: true",
      { cause: error },
    );
  }
  return findKnownHostKeys(text, name);
}

function algorithmsFor(known: KnownHostKey[]): string[] | undefined {
  const algorithms = known
    .filter((entry) => !entry.revoked)
    .flatMap((entry) => (Object.hasOwn(ALGORITHMS_BY_KEY_TYPE, entry.type) ? ALGORITHMS_BY_KEY_TYPE[entry.type]! : []));
  return algorithms.length > 0 ? [...new Set(algorithms)] : undefined;
}

/** The algorithm name at the start of an SSH public key blob. */
function keyType(key: Buffer): string {
  if (key.length < 4) return "unknown";
  const length = key.readUInt32BE(0);
  return key.subarray(4, 4 + length).toString("latin1") || "unknown";
}
