/**
 * What went wrong talking to Modal, in words a user can act on. The SDK throws its own classes
 * (NotFoundError, …), nice-grpc `ClientError`s carrying a gRPC status, and plain Errors (an image
 * build that failed); this names the credentials, the API address or the image as the case needs.
 */
import { CodecallError, errorMessage } from "@codecall/core";
import type { Profile } from "modal";

/** The gRPC status codes told apart here (nice-grpc's `Status`, which this package does not import). */
const GRPC_STATUS = { DEADLINE_EXCEEDED: 4, NOT_FOUND: 5, PERMISSION_DENIED: 7, UNAVAILABLE: 14, UNAUTHENTICATED: 16 } as const;

/** Where the SDK looks for credentials, for messages. */
export const CREDENTIAL_SOURCES =
  "MODAL_TOKEN_ID and MODAL_TOKEN_SECRET, the active profile of ~/.modal.toml (or of the file MODAL_CONFIG_PATH names; MODAL_PROFILE picks another profile), or the tokenId and tokenSecret options";

/** A gRPC error's status code and details, when `error` is one (nice-grpc's ClientError). */
function grpcStatus(error: unknown): { code: number; details: string } | undefined {
  if (typeof error !== "object" || error === null) return undefined;
  const { code, details } = error as { code?: unknown; details?: unknown };
  return typeof code === "number" && typeof details === "string" ? { code, details } : undefined;
}

/** True when the SDK has any credentials to send (token pair or OAuth). */
export function hasCredentials(profile: Profile): boolean {
  return Boolean((profile.tokenId && profile.tokenSecret) || (profile.oauthRefreshToken && profile.oauthClientId));
}

/** The error for a client that has no credentials at all (checked before any call). */
export function missingCredentials(): CodecallError {
  return new CodecallError(
    "ENVIRONMENT_FAILED",
    `modal: no Modal credentials found. Give them through ${CREDENTIAL_SOURCES} (\`modal token new\` writes ~/.modal.toml)`,
    {
      details: { reason: "missing-credentials" },
    },
  );
}

/** True when `error` says a sandbox, app or image does not exist. */
export function isNotFound(error: unknown): boolean {
  return (error instanceof Error && error.name === "NotFoundError") || grpcStatus(error)?.code === GRPC_STATUS.NOT_FOUND;
}

/**
 * `error`, thrown while trying to `action` ("create a sandbox"), as a CodecallError: refused
 * credentials, an API that cannot be reached, or what Modal said.
 */
export function modalFailure(action: string, error: unknown, serverUrl: string): CodecallError {
  if (CodecallError.isInstance(error)) return error;
  const status = grpcStatus(error);
  const cause = { cause: error };
  if (status?.code === GRPC_STATUS.UNAUTHENTICATED || status?.code === GRPC_STATUS.PERMISSION_DENIED) {
    return new CodecallError("ENVIRONMENT_FAILED", `modal: Modal refused the credentials (${status.details}). Check ${CREDENTIAL_SOURCES}`, {
      ...cause,
      details: { reason: "credentials-refused" },
    });
  }
  if (status?.code === GRPC_STATUS.UNAVAILABLE || status?.code === GRPC_STATUS.DEADLINE_EXCEEDED) {
    return new CodecallError("ENVIRONMENT_FAILED", `modal: cannot reach the Modal API at ${serverUrl} to ${action} (${status.details})`, {
      ...cause,
      details: { reason: "unreachable", serverUrl },
    });
  }
  const message = status?.details ?? errorMessage(error);
  return new CodecallError("ENVIRONMENT_FAILED", `modal: could not ${action}: ${message}`, {
    ...cause,
    details: { reason: isNotFound(error) ? "not-found" : "failed" },
  });
}
