/**
 * How long a Unix socket's path may be. The kernel keeps it in `sun_path`: 108 bytes on Linux, 104
 * on macOS (with the terminating NUL). Binding a longer path fails, or on some systems silently
 * binds a truncated one, so every transport checks its socket path with this before binding.
 */

/** The longest socket path codecall binds, in UTF-8 bytes: under both limits, with room to spare. */
const MAX_SOCKET_PATH_BYTES = 100;

/**
 * Why no Unix socket can be bound at `path` (for example "120 of at most 100 bytes"), or
 * `undefined` when it can.
 */
export function socketPathTooLong(path: string): string | undefined {
  const bytes = new TextEncoder().encode(path).length;
  return bytes > MAX_SOCKET_PATH_BYTES ? `${bytes} of at most ${MAX_SOCKET_PATH_BYTES} bytes` : undefined;
}
