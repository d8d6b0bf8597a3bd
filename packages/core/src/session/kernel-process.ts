/**
 * The host's end of a running session kernel (`_codecall_kernel.py`): it sends cells and
 * interrupts down the kernel's stdin, splits its stdout and stderr into the cells' output at the
 * kernel's end markers, and says how each cell ended — or that the kernel itself ended under it.
 */
import type { EnvironmentProcess, ProcessExit } from "../environment.js";
import { errorMessage } from "../errors.js";
import { OutputCapture, type ByteSink } from "../execute/output-capture.js";
import type { OutputSink } from "../execute/redacting-sink.js";
import { drainStream, untilAborted } from "../process/collect.js";
import { holdOf, joinHolds } from "../safe-callback.js";
import { delay } from "../timers/delay.js";
import { CellMarkerSplitter } from "./cell-markers.js";

/** How a cell ended, as the kernel reported it, or how the kernel itself ended during the cell. */
export type CellEnding =
  /** `kernelEnds`: why the kernel ends right after this cell (it says so in the cell's marker). */
  | { kind: "finished"; status: "ok" | "error" | "interrupted"; exitCode: number; kernelEnds?: string }
  | { kind: "died"; exit: ProcessExit }
  | { kind: "lost"; because: string };

/**
 * A cell's output, its captures not yet finished: the caller finishes them once the cell's time
 * limit is off, since finishing stdout may save it to a file in the environment (spill-output.ts).
 */
export interface CellOutput {
  stdout: OutputCapture;
  stderr: OutputCapture;
  ending: CellEnding;
}

/** One cell's output limits and live listeners. */
export interface CellSinks {
  maxStdoutBytes: number;
  maxStderrBytes: number;
  /** Secrets the captures' cuts must not split (undefined: redaction off). */
  guardSecrets: readonly string[] | undefined;
  /** Gets the cell's stdout, to save it to a file when the cap cuts it (see spill-output.ts). */
  spill?: ByteSink;
  stdout?: OutputSink;
  stderr?: OutputSink;
}

/** What the kernel printed while no cell ran is kept up to this, for the next cell. */
const BETWEEN_CELLS_OUTPUT_BYTES = 64 * 1024;
/** How long the streams may stay open after the kernel is gone (see supervise-script.ts). */
const STREAM_DRAIN_GRACE_MS = 2_000;

interface ActiveCell {
  readonly number: number;
  readonly sinks: CellSinks;
  readonly stdout: OutputCapture;
  readonly stderr: OutputCapture;
  outcome?: { status: "ok" | "error" | "interrupted"; exitCode: number; stderrMarked: boolean; kernelEnds?: string };
  stderrMarked: boolean;
  /**
   * Aborted when the cell is interrupted: its end marker comes through the output, so a live
   * consumer's hold must not keep it from being read before the kill grace is over.
   */
  readonly letGo: AbortController;
  readonly settle: (output: CellOutput) => void;
}

export class KernelProcess {
  readonly #process: EnvironmentProcess;
  readonly #writer: WritableStreamDefaultWriter<Uint8Array>;
  readonly #encoder = new TextEncoder();
  /**
   * Output while no cell ran, handed to the next one: before the first cell, the kernel's start
   * (one that failed says why there); later, what threads a cell left running printed.
   */
  #between = noOutput();
  #cell: ActiveCell | undefined;
  /** Per stream, the live consumer's hold on the chunks routed during the current read (see `drainStream`). */
  readonly #taking: Record<"stdout" | "stderr", Promise<void> | undefined> = { stdout: undefined, stderr: undefined };
  #ended: CellEnding | undefined;
  readonly #drained: Promise<unknown>;
  readonly #released = new AbortController();
  /** Aborted when the kernel has ended: the live consumers' holds are let go (see `drainStream`). */
  readonly #gone = new AbortController();
  #onStarted: () => void = () => {};
  /**
   * Resolves once the kernel has imported the tools module and waits for its first cell, or has
   * ended; never rejects. A cell's time limit starts after it: starting is not the cell's time.
   */
  readonly started = new Promise<void>((resolve) => (this.#onStarted = resolve));

  /** Takes over a spawned kernel and greets it with the session's nonce and tools module. */
  constructor(process: EnvironmentProcess, hello: { nonce: string; module: string }) {
    this.#process = process;
    this.#writer = process.stdin.getWriter();
    // Unhandled rejections of writes to a dead kernel are reported through its exit instead.
    this.#writer.closed.catch(() => {});
    this.#drained = Promise.all([this.#drain(process.stdout, "stdout", hello.nonce), this.#drain(process.stderr, "stderr", hello.nonce)]);
    this.#send(hello);
    void process.wait().then(
      (exit) => this.#end({ kind: "died", exit }),
      (error: unknown) => this.#end({ kind: "lost", because: errorMessage(error) }),
    );
  }

  /** Set once the kernel has ended (killed, crashed, or its environment lost). */
  get ended(): CellEnding | undefined {
    return this.#ended;
  }

  /** Runs cell `number` and resolves when it ends (or the kernel does). One cell at a time. */
  run(number: number, code: string, sinks: CellSinks): Promise<CellOutput> {
    if (this.#cell !== undefined) throw new Error(`cell ${this.#cell.number} is still running`);
    return new Promise<CellOutput>((settle) => {
      const guard = sinks.guardSecrets === undefined ? {} : { guardSecrets: sinks.guardSecrets };
      const cell: ActiveCell = {
        number,
        sinks,
        stdout: new OutputCapture(sinks.maxStdoutBytes, { ...guard, ...(sinks.spill === undefined ? {} : { spill: sinks.spill }) }),
        stderr: new OutputCapture(sinks.maxStderrBytes, guard),
        stderrMarked: false,
        letGo: new AbortController(),
        settle,
      };
      this.#cell = cell;
      const between = this.#between;
      this.#between = noOutput();
      for (const chunk of between.stdout) this.#data("stdout", chunk);
      for (const chunk of between.stderr) this.#data("stderr", chunk);
      if (this.#ended !== undefined) void this.#settleEnded(this.#ended);
      else this.#send({ run: number, code });
    });
  }

  /** Asks the kernel to interrupt cell `number` (KeyboardInterrupt); ignored when it has ended. */
  interrupt(number: number): void {
    if (this.#cell?.number === number) this.#cell.letGo.abort();
    this.#send({ interrupt: number });
  }

  /** Ends the kernel's whole process tree. */
  async kill(): Promise<void> {
    await this.#process.kill().catch(() => {});
  }

  /** Resolves once the kernel has ended and its output is read (or the drain grace is over). */
  async exited(): Promise<void> {
    await this.#process.wait().catch(() => {});
    await this.#settleStreams();
  }

  #send(message: object): void {
    this.#writer.write(this.#encoder.encode(`${JSON.stringify(message)}\n`)).catch(() => {
      // The kernel is gone: its exit says so, and ends the cell.
    });
  }

  async #drain(stream: ReadableStream<Uint8Array>, which: "stdout" | "stderr", nonce: string): Promise<void> {
    const splitter = new CellMarkerSplitter(nonce, {
      onData: (chunk) => this.#data(which, chunk),
      onMarker: (payload) => this.#marker(which, payload),
    });
    // The splitter routes what drainStream reads (lent chunks: what the splitter and the cell
    // keep, they copy); the cell's capture and its live consumer may each hold the reading back.
    await drainStream(
      stream,
      { push: () => {}, ready: () => this.#cell?.[which].ready(), totalBytes: 0, finish: () => undefined as never },
      (chunk) => {
        splitter.push(chunk);
        const taking = this.#taking[which];
        this.#taking[which] = undefined;
        return taking;
      },
      this.#released.signal,
      this.#gone.signal,
    );
    splitter.end();
  }

  #data(which: "stdout" | "stderr", chunk: Uint8Array): void {
    const cell = this.#cell;
    if (cell === undefined) {
      const between = this.#between;
      if (between.bytes < BETWEEN_CELLS_OUTPUT_BYTES) {
        between[which].push(chunk.slice());
        between.bytes += chunk.length;
      }
      return;
    }
    cell[which].push(chunk);
    const held = holdOf(cell.sinks[which]?.write(chunk));
    const taking = held === undefined ? undefined : untilAborted(held, [cell.letGo.signal]);
    if (taking !== undefined) this.#taking[which] = joinHolds(this.#taking[which], taking);
  }

  #marker(which: "stdout" | "stderr", payload: unknown): void {
    if (typeof payload !== "object" || payload === null) return;
    const marker = payload as { ready?: unknown; cell?: unknown; status?: unknown; exitCode?: unknown; stderr?: unknown; kernelEnds?: unknown };
    if (marker.ready === true) this.#onStarted();
    const cell = this.#cell;
    if (cell === undefined) return;
    // A repeated marker (the kernel retries one a late interrupt broke) or another cell's: ignored.
    if (marker.cell !== cell.number) return;
    if (which === "stderr") cell.stderrMarked = true;
    else if (cell.outcome === undefined) {
      const status = marker.status === "ok" || marker.status === "interrupted" ? marker.status : "error";
      const exitCode = typeof marker.exitCode === "number" ? marker.exitCode : 1;
      cell.outcome = {
        status,
        exitCode,
        stderrMarked: marker.stderr !== false,
        ...(typeof marker.kernelEnds === "string" ? { kernelEnds: marker.kernelEnds } : {}),
      };
    }
    const { outcome } = cell;
    if (outcome !== undefined && (cell.stderrMarked || !outcome.stderrMarked)) {
      const { stderrMarked: _, ...ended } = outcome;
      this.#finish(cell, { kind: "finished", ...ended });
    }
  }

  #end(ending: CellEnding): void {
    this.#ended ??= ending;
    this.#gone.abort();
    this.#onStarted();
    void this.#settleEnded(ending);
  }

  /** The kernel has ended: the running cell (if any) ends with it, once its last output is in. */
  async #settleEnded(ending: CellEnding): Promise<void> {
    const cell = this.#cell;
    if (cell === undefined) return;
    await this.#settleStreams();
    if (this.#cell === cell) this.#finish(cell, ending);
  }

  async #settleStreams(): Promise<void> {
    await Promise.race([this.#drained, delay(STREAM_DRAIN_GRACE_MS, { unref: true })]);
    this.#released.abort();
  }

  #finish(cell: ActiveCell, ending: CellEnding): void {
    this.#cell = undefined;
    cell.sinks.stdout?.end();
    cell.sinks.stderr?.end();
    cell.settle({ stdout: cell.stdout, stderr: cell.stderr, ending });
  }
}

function noOutput(): { stdout: Uint8Array[]; stderr: Uint8Array[]; bytes: number } {
  return { stdout: [], stderr: [], bytes: 0 };
}
