/**
 * SDK failures as codecall errors that say what to do. The SDK's errors carry the HTTP status of
 * the API's answer (`statusCode`) or name a connection failure; their messages hold no
 * credentials, and neither do these.
 */
import { CodecallError, errorMessage } from "@codecall/core";

/** The HTTP status an SDK error carries, if any. */
export function statusOf(error: unknown): number | undefined {
  const status = (error as { statusCode?: unknown } | null)?.statusCode;
  return typeof status === "number" ? status : undefined;
}

/** `doing` is what failed, e.g. "creating the sandbox". */
export function sdkFailure(error: unknown, doing: string): CodecallError {
  if (CodecallError.isInstance(error)) return error;
  const status = statusOf(error);
  const name = (error as { name?: unknown } | null)?.name;
  const message = errorMessage(error);
  let why: string;
  if (status === 401 || (status === undefined && name === "DaytonaAuthenticationError")) {
    why = `the Daytona API refused the credentials${status ? ` (${status})` : ""}: ${message}. Give apiKey (-o apiKey=…) or set DAYTONA_API_KEY`;
  } else if (status === 403) {
    why = `the Daytona API forbids it (403): ${message}`;
  } else if (status !== undefined) {
    why = `the Daytona API answered ${status}: ${message}`;
  } else {
    why = message;
  }
  return new CodecallError("ENVIRONMENT_FAILED", `daytona: ${doing} failed: ${why}`, { cause: error });
}
