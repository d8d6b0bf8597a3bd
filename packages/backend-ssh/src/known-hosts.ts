/**
 * OpenSSH `known_hosts` files: which keys a host is known by. Handles plain and hashed (`|1|`)
 * host names, the `[host]:port` form for non-standard ports, `*`/`?` wildcards, `!` negations and
 * the `@revoked` marker. `@cert-authority` lines are skipped: ssh2 does not verify host
 * certificates, so they can never vouch for a key here.
 */
import { createHmac } from "node:crypto";

/** One key line that applies to the host being looked up. */
export interface KnownHostKey {
  /** Key type as written in the file, e.g. "ssh-ed25519". */
  type: string;
  /** The key blob (SSH wire format), decoded from base64. */
  key: Buffer;
  /** 1-based line number, for error messages. */
  line: number;
  revoked: boolean;
}

/** The name a host is recorded under: `host` on port 22, `[host]:port` otherwise (as OpenSSH writes it). */
export function knownHostsName(host: string, port: number): string {
  const lower = host.toLowerCase();
  return port === 22 ? lower : `[${lower}]:${port}`;
}

/** The keys `text` lists for `name` (see {@link knownHostsName}), in file order. */
export function findKnownHostKeys(text: string, name: string): KnownHostKey[] {
  const found: KnownHostKey[] = [];
  text.split(/\r?\n/).forEach((raw, index) => {
    const fields = raw.trim().split(/\s+/);
    if (fields[0] === "" || fields[0]!.startsWith("#")) return;
    const marker = fields[0]!.startsWith("@") ? fields.shift() : undefined;
    if (marker === "@cert-authority") return;
    const [hosts, type, data] = fields;
    if (!hosts || !type || !data || !hostsMatch(hosts, name)) return;
    found.push({ type, key: Buffer.from(data, "base64"), line: index + 1, revoked: marker === "@revoked" });
  });
  return found;
}

/** A comma-separated pattern list matches when some pattern does and no negated one does. */
function hostsMatch(patterns: string, name: string): boolean {
  let matched = false;
  for (const pattern of patterns.split(",")) {
    if (pattern.startsWith("|1|")) {
      if (hashedMatch(pattern, name)) matched = true;
    } else if (pattern.startsWith("!")) {
      if (wildcardMatch(pattern.slice(1), name)) return false;
    } else if (wildcardMatch(pattern, name)) {
      matched = true;
    }
  }
  return matched;
}

/** `|1|salt|hash`: HMAC-SHA1 of the name, keyed with the salt (both base64). */
function hashedMatch(pattern: string, name: string): boolean {
  const [, , salt, hash] = pattern.split("|");
  if (!salt || !hash) return false;
  return createHmac("sha1", Buffer.from(salt, "base64")).update(name).digest("base64") === hash;
}

function wildcardMatch(pattern: string, name: string): boolean {
  const source = pattern
    .toLowerCase()
    .replace(/[.+^${}()|[\]\\]/g, "\\$&")
    .replace(/\*/g, ".*")
    .replace(/\?/g, ".");
  return new RegExp(`^${source}$`).test(name);
}
