/**
 * @codecall/conformance — the shared suites of codecall. Every backend runs
 * `describeEnvironment()`, every transport `describeTransport()`; third-party plugins run them
 * too, from their own vitest files.
 */
export { describeApprovals, type ApprovalSuiteOptions } from "./describe-approvals.js";
export { describeBackpressure, type BackpressureSuiteOptions } from "./describe-backpressure.js";
export { describeEnvironment, processGoneCommand, type EnvironmentSuiteOptions } from "./describe-environment.js";
export { describeExecution, type ExecutionSuiteOptions } from "./describe-execution.js";
export { describeTransport, type MalformedInputCase, type TransportSuiteOptions } from "./describe-transport.js";
export { describeSessions, type SessionsSuiteOptions } from "./describe-sessions.js";
export { describeRunEvents, type RunEventsSuiteOptions } from "./describe-run-events.js";
export { describeReadRace, type CappedReader, type ReadRaceSuiteOptions } from "./describe-read-race.js";
export { describeIntegration, integrationRequired } from "./integration.js";
export { describePythonTests, type PythonTestsOptions } from "./describe-python-tests.js";
export { SOCKET_MALFORMED_INPUT } from "./socket-malformed-input.js";
