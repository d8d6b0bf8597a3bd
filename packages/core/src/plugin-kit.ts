/**
 * @codecall/core/plugin-kit — the part of the backend kit that is not the remote executor: option
 * declarations (`defineOptions`), processes on this host and their collection, bounded reads, shell
 * quoting, timers (one abortable `delay`), the socket-path limit, the guest-language guard, debug
 * logging and the other small helpers the official plugins share. Backends that run processes on
 * this host, transports and tool sets import it instead of `backend-kit`, so a local run does not
 * load `ExecEnvironment`, the remote command scripts or the environment agent (a CLI start-up cost).
 */
export { TREE_TAG_VARIABLE } from "./process/tree-tag.js";
export { defineOptions, OptionSet } from "./options/define-options.js";
export { closestName } from "./options/closest-name.js";
export type { OptionDescription } from "./options/option-help.js";
export type {
  BooleanOption,
  BooleanOrStringOption,
  EnvOption,
  IntegerOption,
  ListOption,
  MapOption,
  NumberOption,
  OptionInput,
  OptionsInput,
  OptionSpec,
  OptionSpecs,
  OptionType,
  OptionValue,
  OptionValues,
  StringOption,
} from "./options/option-types.js";
export { collectProcess, drainStream, toExecResult, writeStdin, type CollectedProcess, type CollectOptions } from "./process/collect.js";
export { createCapture, utf8SafeEnd, type ByteCapture, type CapturedOutput } from "./execute/output-capture.js";
export { HostProcess, startHostProcess, type HostStdio, type SpawnedChild, type StartHostProcessOptions } from "./process/host-process.js";
export type { ProcessHost, TreeSignal } from "./process/process-tree.js";
export { LiveProcesses, type WatchedProcess } from "./process/live-processes.js";
export { StreamTail } from "./process/stream-tail.js";
export { checkMaxBytes, fileTooLarge, readBounded, type BoundedReadOptions, type ReadAt } from "./files/bounded-read.js";
export { ScopedEnvironment, type RunScope } from "./execute/scoped-environment.js";
export { isCommandNotFound, missingInterpreterMessage } from "./execute/result.js";
export { validateAgainstSchema } from "./schema/validate.js";
export { objectRootProblem } from "./schema/object-root.js";
export { describeStandardIssues, isStandardSchema, parseWithStandardSchema, standardInputJsonSchema } from "./schema/standard-schema.js";
export { assertEnvName, shellExports, shellQuote } from "./text/shell-quote.js";
export { stripAnsi } from "./text/ansi.js";
export { groupDigits } from "./text/group-digits.js";
export { MAX_TIMER_DELAY_MS, setLongTimeout, type LongTimeout, type LongTimeoutOptions } from "./timers/long-timeout.js";
export { delay, type DelayOptions } from "./timers/delay.js";
export { socketPathTooLong } from "./sockets/socket-path.js";
export { pipeHandle, type PipeHandle } from "./sockets/pipe-handle.js";
export { LENT_CHUNKS, type ChunkReader, type LentChunkStream } from "./process/chunk-reader.js";
export { guestClientFor } from "./guest/guest-client-for.js";
export { newRunId } from "./ids.js";
export { callSafely } from "./safe-callback.js";
export { debugLogger, type DebugLog } from "./debug/debug-log.js";
export type { DebugNamespace } from "./debug/debug-namespaces.js";
export { describeCommand, describeExit } from "./debug/describe-command.js";
