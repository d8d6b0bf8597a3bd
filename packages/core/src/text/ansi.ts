/**
 * Removes terminal escape sequences (ECMA-48: CSI with private/intermediate bytes, OSC ended by
 * BEL or ST, DCS/SOS/PM/APC strings, two-byte escapes, and 8-bit C1 controls) so colours and
 * cursor moves do not reach the model as noise. No ESC is left: one that begins none of these
 * (followed by a control character, or last) goes too, since a terminal may still act on it.
 */
const ESCAPES = new RegExp(
  [
    "\\u001b\\[[0-?]*[ -/]*[@-~]", // CSI
    "\\u009b[0-?]*[ -/]*[@-~]", // 8-bit CSI
    "(?:\\u001b\\]|\\u009d)[^\\u0007\\u001b\\u009c]*(?:\\u0007|\\u001b\\\\|\\u009c)", // OSC
    "(?:\\u001b[PX^_]|[\\u0090\\u0098\\u009e\\u009f])[^\\u001b\\u009c]*(?:\\u001b\\\\|\\u009c)", // DCS SOS PM APC
    "\\u001b[ -/]+[0-~]", // nF escapes
    "\\u001b[0-~]", // Fp, Fe, Fs
    "[\\u0080-\\u009f]", // remaining C1 controls
    // An ESC that begins no sequence above (ESC LF c: a terminal runs the LF, then ESC c resets it)
    "\\u001b",
  ].join("|"),
  "g",
);

// eslint-disable-next-line no-control-regex -- ESC and the C1 controls are exactly what this looks for
const MAY_CONTAIN_ESCAPES = /[\u001b\u0080-\u009f]/;

export function stripAnsi(text: string): string {
  return MAY_CONTAIN_ESCAPES.test(text) ? text.replace(ESCAPES, "") : text;
}
