// Bearer tokens of the fake: JWT-shaped (header.payload.signature, base64url) with an `exp`, as
// the SDK decodes them to schedule refreshes; the signature is random and only the fake checks it.
import { randomBytes } from "node:crypto";

const encode = (value) => Buffer.from(JSON.stringify(value)).toString("base64url");

/** A token valid for an hour, carrying `claims`. */
export function issueToken(claims) {
  const exp = Math.floor(Date.now() / 1000) + 3600;
  return `${encode({ alg: "none", typ: "JWT" })}.${encode({ ...claims, exp })}.${randomBytes(12).toString("base64url")}`;
}
