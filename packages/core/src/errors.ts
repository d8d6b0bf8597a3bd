/**
 * Errors thrown by codecall. Every error has a stable `code`, keeps its `cause`, and can be
 * recognised with `CodecallError.isInstance()` even when two copies of this package are installed
 * (an `instanceof` check would fail across copies).
 */
import { describeValue } from "./text/describe-value.js";

const MARKER = Symbol.for("codecall.error");

/** Stable codes of {@link CodecallError}. */
export type CodecallErrorCode =
  | "INVALID_OPTIONS"
  | "UNKNOWN_BACKEND"
  | "UNKNOWN_TRANSPORT"
  | "PACKAGE_NOT_INSTALLED"
  | "NO_SUPPORTED_TRANSPORT"
  | "ENVIRONMENT_CLOSED"
  | "ENVIRONMENT_FAILED"
  | "FILE_NOT_FOUND"
  | "FILE_TOO_LARGE"
  | "INVALID_PATH"
  | "INVALID_TOOL"
  | "INCOMPATIBLE_PLUGIN"
  | "TRANSPORT_FAILED"
  | "SESSION_LIMIT"
  | "SESSION_CLOSED";

export interface CodecallErrorOptions {
  cause?: unknown;
  /** Structured facts about the failure (never secrets). */
  details?: Record<string, unknown>;
}

/** The one error class of codecall; `code` tells failures apart. */
export class CodecallError extends Error {
  readonly code: CodecallErrorCode;
  readonly details: Record<string, unknown>;
  readonly [MARKER] = true;

  constructor(code: CodecallErrorCode, message: string, options: CodecallErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = "CodecallError";
    this.code = code;
    this.details = options.details ?? {};
  }

  /** True for any codecall error (from any installed copy), optionally of the given code. */
  static isInstance(error: unknown, code?: CodecallErrorCode): error is CodecallError {
    if (typeof error !== "object" || error === null || !(MARKER in error)) return false;
    return code === undefined || (error as CodecallError).code === code;
  }
}

/** Longest description of a thrown value that is not an Error or a string. */
const MAX_DESCRIBED_ERROR_CHARS = 2_000;
const UNREADABLE_ERROR = "an error that cannot be read (reading its message threw)";

/**
 * The message of any thrown value, for reports that must not throw themselves: an Error's
 * `message`, a string as is, anything else described (bounded). Never throws, whatever the value
 * does (a `message` getter that throws, a Proxy, a cycle, a throwing `toString`/`toJSON`).
 */
export function errorMessage(error: unknown): string {
  let subject: unknown = error;
  try {
    if (typeof error === "string") return error;
    if (typeof error !== "object" || error === null) return String(error);
    if (error instanceof Error) {
      subject = error.message;
      if (typeof subject === "string") return subject;
    }
  } catch {
    // A `message` getter, a Proxy trap or a `toString` threw.
    return UNREADABLE_ERROR;
  }
  return describeValue(subject, { maxLength: MAX_DESCRIBED_ERROR_CHARS });
}
