/**
 * One host poll as a shell command, and the parser of its output. The command is the fixed script
 * `poll.sh` behind a few host-made settings (paths quoted, numbers, a random boundary); responses
 * and acknowledgements travel on stdin, never on the command line.
 */
import { shellQuote } from "@codecall/core/plugin-kit";
import pollScript from "./poll.sh?raw";

/** Exit code of a poll that found no RPC dir: the run has ended and its dir is gone. */
export const RPC_DIR_GONE_EXIT_CODE = 86;

/** A request id as it may appear in a file name; `poll.sh` applies the same rule. */
export const REQUEST_ID = /^[A-Za-z0-9_-]{1,128}$/;

export interface PollInput {
  /** The run's RPC dir. */
  rpcDir: string;
  /** Random and fresh for each poll: guest content cannot forge a header line. */
  boundary: string;
  /** Request files larger than this are reported by their size only. */
  maxFileBytes: number;
  /** Request bytes one poll may print (the first request is printed whatever its size). */
  budgetBytes: number;
  /** Requests one poll may claim. */
  maxClaims: number;
  /** After writing answers, how long (ms) the poll waits for the guest's next request. */
  lingerMs: number;
  /** Response frames to write, by request id (each one line, as `encodeFrame` makes them). */
  responses: ReadonlyMap<string, string>;
  /** Ids whose claimed files can go: the host holds their requests. */
  acks: Iterable<string>;
  /** The last poll of a session: write the responses, mark the dir closed, claim nothing. */
  closing: boolean;
}

/** A claimed request as one poll printed it. */
export interface PolledRequest {
  id: string;
  /** Claimed by this poll; false for one left in `claimed/` by an earlier poll. */
  fresh: boolean;
  /** Size of the request file in bytes. */
  size: number;
  /** The file's content; empty when it was larger than `maxFileBytes`. */
  content: string;
}

/** The command and stdin of one poll. */
export function pollCommand(input: PollInput): { command: string; stdin: string } {
  const lines: string[] = [];
  for (const [id, frame] of input.responses) lines.push(`R ${assertRequestId(id)} ${frame.endsWith("\n") ? frame.slice(0, -1) : frame}\n`);
  for (const id of input.acks) lines.push(`A ${assertRequestId(id)}\n`);
  const settings = {
    rpc: shellQuote(input.rpcDir),
    boundary: shellQuote(input.boundary),
    max_file: String(Math.floor(input.maxFileBytes)),
    budget: String(Math.floor(input.budgetBytes)),
    max_claims: String(Math.floor(input.maxClaims)),
    linger: String(Math.floor(input.lingerMs)),
    has_input: lines.length > 0 ? "1" : "0",
    closing: input.closing ? "1" : "0",
  };
  const header = Object.entries(settings)
    .map(([name, value]) => `${name}=${value}`)
    .join("\n");
  return { command: `${header}\n${pollScript}`, stdin: lines.join("") };
}

/** Room for header lines (about 200 bytes each) in {@link maxPollOutputBytes}: thousands of claims. */
const HEADER_ROOM_BYTES = 1024 * 1024;

/**
 * The most stdout a poll prints: the first request whatever the budget, the budget, and header
 * lines (a claim over `maxFileBytes` prints one alone). The host keeps no more than this of a
 * poll's output, so an environment whose commands a script replaced cannot fill host memory.
 */
export function maxPollOutputBytes(input: Pick<PollInput, "maxFileBytes" | "budgetBytes">): number {
  return input.maxFileBytes + input.budgetBytes + HEADER_ROOM_BYTES;
}

/**
 * Splits a poll's stdout into requests. Returns `undefined` when the output is not complete (no
 * end line, or text outside the framing): the caller must treat the poll as lost.
 */
export function parsePollOutput(stdout: string, boundary: string): PolledRequest[] | undefined {
  const separator = `\n${boundary} `;
  const parts = `\n${stdout}`.split(separator);
  if (parts.shift() !== "" || parts.pop() !== "end\n") return undefined;
  const requests: PolledRequest[] = [];
  for (const part of parts) {
    const newline = part.indexOf("\n");
    const match = newline === -1 ? null : /^(\S+) (new|old) (\d+)$/.exec(part.slice(0, newline));
    if (!match) return undefined;
    const [, id, age, size] = match;
    if (!REQUEST_ID.test(id!)) continue;
    // The newline the script adds after each file went with the separator; the rest is the file.
    requests.push({ id: id!, fresh: age === "new", size: Number(size), content: part.slice(newline + 1) });
  }
  return requests;
}

function assertRequestId(id: string): string {
  if (!REQUEST_ID.test(id)) throw new TypeError(`Invalid request id: ${JSON.stringify(id)}`);
  return id;
}
