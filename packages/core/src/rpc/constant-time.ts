/**
 * Compares two strings in time that depends only on the expected string's length, so a guest
 * cannot learn the run token one character at a time.
 */
export function constantTimeEqual(candidate: string, expected: string): boolean {
  let difference = candidate.length ^ expected.length;
  for (let index = 0; index < expected.length; index += 1) {
    // charCodeAt past the end is NaN, which `| 0` turns into 0: still a full-length loop.
    difference |= (candidate.charCodeAt(index) | 0) ^ expected.charCodeAt(index);
  }
  return difference === 0;
}
