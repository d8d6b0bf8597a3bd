/**
 * Live output as the embedder sees it (`onStdout`, `onStderr`): the script's bytes, decoded as
 * UTF-8 and passed through a streaming redactor, so a console shows secrets masked as the result
 * does, also when a secret arrives split across chunks.
 */
import { redactSecrets } from "../text/redact.js";
import { StreamingRedactor } from "../text/streaming-redactor.js";

/** Takes a stream's chunks; `end()` delivers what the redactor still held. */
export interface OutputSink {
  // Properties, not methods: the supervisor is handed `write` on its own, detached from the sink.
  /**
   * `chunk` is lent for the call (a view of a reused read buffer, see `drainStream`). A promise
   * back (see `holdOf`): the consumer has not taken it yet; the stream is read on once it settles.
   */
  write: (chunk: Uint8Array) => unknown;
  end: () => void;
}

/**
 * A sink that redacts before calling `onChunk` (never with an empty chunk); with `knownSecrets`
 * undefined (redaction off) it passes the bytes through as they are. `onChunk` gets chunks of its
 * own to keep: the redacted text is encoded afresh, the bytes passed through are copied. What
 * `onChunk` returns, `write` returns (the consumer's hold on the stream).
 */
export function redactingSink(onChunk: (chunk: Uint8Array) => unknown, knownSecrets: readonly string[] | undefined): OutputSink {
  if (knownSecrets === undefined) return { write: (chunk) => onChunk(chunk.slice()), end: () => {} };
  const decoder = new TextDecoder();
  const encoder = new TextEncoder();
  const redactor = new StreamingRedactor({ knownSecrets });
  let ended = false;
  const emit = (text: string) => (text === "" ? undefined : onChunk(encoder.encode(text)));
  return {
    write: (chunk) => {
      const text = decoder.decode(chunk, { stream: !ended });
      // Output after the end (a backend's late chunk) has nothing to wait for: redacted whole.
      return emit(ended ? redactSecrets(text, { knownSecrets }) : redactor.push(text));
    },
    end: () => {
      if (ended) return;
      ended = true;
      void emit(redactor.push(decoder.decode()) + redactor.flush());
    },
  };
}
