/** Guest-side sources imported as text; embedded at build time (tsup) and by Vite in tests. */
declare module "*?raw" {
  const source: string;
  export default source;
}
