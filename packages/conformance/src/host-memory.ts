/**
 * Host memory as the flood cases measure it: heap and array buffers (where output chunks live), not
 * RSS, which keeps what a process once took, so pipe traffic alone would blur the measure.
 */

/** Starts sampling every 10 ms; `stop()` ends it and returns the peak growth, in bytes. */
export function sampleHostMemory(): { stop: () => number } {
  const used = () => {
    const memory = process.memoryUsage();
    return memory.heapUsed + memory.arrayBuffers;
  };
  const before = used();
  let peak = before;
  const sampler = setInterval(() => (peak = Math.max(peak, used())), 10);
  return {
    stop: () => {
      clearInterval(sampler);
      return Math.max(peak, used()) - before;
    },
  };
}
