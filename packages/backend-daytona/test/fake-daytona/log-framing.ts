/**
 * Ways to frame the log WebSocket's messages, for FakeDaytona.logFraming. The daemon's
 * framing is not specified — it sends what its reads of the log return — so the backend must
 * deliver the same bytes whatever it is; these frame it the ways that trip the SDK's demultiplexer
 * (a message that ends right after a stream label, labels split between messages, tiny messages)
 * and at random.
 */

/** Cut positions in a stretch of one log stream at `offset` (a stream sends the log from its start). */
export type LogFraming = (stretch: Buffer, offset: number) => number[];

const isLabelByte = (byte: number | undefined) => byte === 1 || byte === 2;

/** Every message ends right after a stream label (and its next one starts with the line's text). */
export const afterEveryLabel: LogFraming = (stretch) => {
  const cuts: number[] = [];
  for (let index = 2; index < stretch.length; index += 1) {
    const byte = stretch[index];
    if (isLabelByte(byte) && stretch[index - 1] === byte && stretch[index - 2] === byte && !isLabelByte(stretch[index + 1])) cuts.push(index + 1);
  }
  return cuts;
};

/** Messages of `size` bytes, counted from the start of the log. */
export const everyBytes =
  (size: number): LogFraming =>
  (stretch, offset) => {
    const cuts: number[] = [];
    for (let cut = size - (offset % size); cut < stretch.length; cut += size) cuts.push(cut);
    return cuts;
  };

/** Messages end at these offsets of the log. */
export const atOffsets =
  (...offsets: number[]): LogFraming =>
  (stretch, offset) =>
    offsets.map((at) => at - offset).filter((cut) => cut > 0 && cut < stretch.length);

/** Messages of random sizes from 1 to `max` bytes, the same for the same seed. */
export function randomSizes(seed: number, max: number): LogFraming {
  let state = seed >>> 0 || 1;
  const next = () => {
    // xorshift32: small, seeded, good enough to scatter cuts.
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    return (state >>> 0) % max;
  };
  return (stretch) => {
    const cuts: number[] = [];
    for (let cut = 1 + next(); cut < stretch.length; cut += 1 + next()) cuts.push(cut);
    return cuts;
  };
}
