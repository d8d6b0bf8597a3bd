/**
 * The one guard every transport's `guestClient(language)` needs: a transport ships guest clients
 * for some languages only, and asking it for another is a clear error, not `undefined` source.
 */
import { CodecallError } from "../errors.js";
import type { GuestLanguage } from "../transport.js";

/**
 * The source of `transportId`'s client in `language`, from the `clients` it ships. Throws a
 * `TRANSPORT_FAILED` error naming the transport and the language when it has none.
 */
export function guestClientFor(transportId: string, language: GuestLanguage, clients: Readonly<Partial<Record<GuestLanguage, string>>>): string {
  const source = Object.hasOwn(clients, language) ? clients[language] : undefined;
  if (source === undefined) throw new CodecallError("TRANSPORT_FAILED", `The ${transportId} transport has no ${String(language)} client`);
  return source;
}
