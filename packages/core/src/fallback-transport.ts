/**
 * A fallback of `"auto"` that is loaded only when a run falls back to it. Loading a transport
 * package costs a short run's start-up time (module resolution and compilation: a few ms each),
 * and a fallback is needed only when the preferred transport fails to open, so the resolver hands
 * out this stand-in instead when it knows the environment (see `resolveTransports`).
 */
import type { Environment } from "./environment.js";
import { CodecallError } from "./errors.js";
import type { GuestLanguage, RunContext, Transport, TransportSession } from "./transport.js";

/**
 * A transport that loads the real one (`load`, which rejects like the resolver does) when it is
 * opened. It stands after a transport that supports the environment, so {@link Transport.supports}
 * says yes and the real transport's answer is checked on opening instead: an unsupporting one
 * fails to open, which `openTransport` reports as a skipped candidate like any other failure.
 */
export function fallbackTransport(id: string, load: () => Promise<Transport>): Transport {
  let loading: Promise<Transport> | undefined;
  let loaded: Transport | undefined;
  return {
    specificationVersion: "v1",
    id,
    supports: () => true,
    async open(environment: Environment, run: RunContext): Promise<TransportSession> {
      loading ??= load();
      const transport = await loading;
      if (!transport.supports(environment)) {
        throw new CodecallError(
          "NO_SUPPORTED_TRANSPORT",
          `it does not support the ${environment.backendId} backend${transport.requires ? ` (it needs ${transport.requires})` : ""}`,
        );
      }
      loaded = transport;
      return transport.open(environment, run);
    },
    guestClient(language: GuestLanguage): string {
      // Core asks only the transport that serves a run for its client, so after open().
      if (!loaded)
        throw new CodecallError("TRANSPORT_FAILED", `The ${id} transport is loaded when a run falls back to it; it has no guest client before`);
      return loaded.guestClient(language);
    },
  };
}
