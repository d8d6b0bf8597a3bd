/** Memory sizes as `docker run --memory` writes them: bytes, or a number with a unit of 1024. */

const MEMORY_UNITS: Readonly<Record<string, number>> = { "": 1, b: 1, k: 1024, m: 1024 ** 2, g: 1024 ** 3, t: 1024 ** 4 };

/** The engine refuses less; said up front, with the option's name. */
const MIN_MEMORY_BYTES = 6 * 1024 ** 2;

/** `536870912`, `"512m"`, `"2g"`, `"1.5g"` → bytes; undefined for nonsense and amounts the engine would refuse. */
export function memoryBytes(value: unknown): number | undefined {
  const text = typeof value === "number" ? String(value) : typeof value === "string" ? value.trim() : "";
  const match = /^(\d+(?:\.\d+)?)\s*([bkmgt]?)i?b?$/i.exec(text);
  const bytes = match ? Math.floor(Number(match[1]) * MEMORY_UNITS[match[2]!.toLowerCase()]!) : NaN;
  return Number.isSafeInteger(bytes) && bytes >= MIN_MEMORY_BYTES ? bytes : undefined;
}

/** What is wrong with a `memory` value {@link memoryBytes} refuses. */
export function memoryProblem(value: unknown): string {
  return `must be at least 6m (bytes, or a number with b/k/m/g), got ${JSON.stringify(value)}`;
}
