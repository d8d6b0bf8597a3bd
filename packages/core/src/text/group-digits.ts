/**
 * `1234567` as `"1,234,567"`: what `toLocaleString("en-US")` prints for an integer, without it.
 * The first `toLocaleString` call of a process initialises ICU's locale data, which costs 10–50 ms;
 * the built-in tools format their limits into their descriptions when they are created, so every
 * `codecall run` paid for it at start-up.
 */
export function groupDigits(count: number): string {
  if (!Number.isSafeInteger(count)) return count.toLocaleString("en-US");
  const digits = String(Math.abs(count));
  const head = digits.length % 3 || 3;
  let out = digits.slice(0, head);
  for (let index = head; index < digits.length; index += 3) out += `,${digits.slice(index, index + 3)}`;
  return count < 0 ? `-${out}` : out;
}
