/**
 * Choosing and opening a run's transport. Candidates are tried in order of preference; one that
 * supports the environment but fails to open (a stream relay that cannot start, say) gives way to
 * the next, so `"auto"` still ends on the file transport that works everywhere.
 */
import type { Environment } from "../environment.js";
import { CodecallError, errorMessage } from "../errors.js";
import type { RunContext, Transport, TransportSession } from "../transport.js";

/** The candidates that support the environment, in order; explains when there are none. */
export function supportingTransports(candidates: Transport | readonly Transport[], environment: Environment): Transport[] {
  const list = Array.isArray(candidates) ? (candidates as readonly Transport[]) : [candidates as Transport];
  const supporting = list.filter((transport) => transport.supports(environment));
  if (supporting.length > 0) return supporting;
  const names = list.map((transport) => transport.id).join(", ") || "(none given)";
  const why = list
    .map((transport) => `${transport.id} needs ${transport.requires ?? `something the ${environment.backendId} backend lacks`}`)
    .join("; ");
  throw new CodecallError(
    "NO_SUPPORTED_TRANSPORT",
    `No transport supports the ${environment.backendId} backend (tried: ${names})${why ? `: ${why}` : ""}. ` +
      `Choose another, or "auto": the file transport (@codecall/transport-file) works with every backend.`,
    { details: { backend: environment.backendId, tried: list.map((transport) => transport.id) } },
  );
}

/** The first transport that supports the environment; explains when none does. */
export function pickTransport(candidates: Transport | readonly Transport[], environment: Environment): Transport {
  return supportingTransports(candidates, environment)[0]!;
}

/** A transport serving the run, and the earlier candidates that failed to open (with why). */
export interface OpenedTransport {
  transport: Transport;
  session: TransportSession;
  /** One line per candidate that supported the environment but failed to open, e.g. "stream: ...". */
  skipped: string[];
}

/**
 * Opens the first candidate that works. Rejects with every candidate's failure when none does.
 */
export async function openTransport(candidates: readonly Transport[], environment: Environment, run: RunContext): Promise<OpenedTransport> {
  const skipped: string[] = [];
  for (const transport of candidates) {
    try {
      const session = await transport.open(environment, run);
      return { transport, session, skipped };
    } catch (error) {
      skipped.push(`${transport.id}: ${errorMessage(error)}`);
    }
  }
  throw new CodecallError("TRANSPORT_FAILED", skipped.join("; "), {
    details: { tried: candidates.map((transport) => transport.id) },
  });
}
