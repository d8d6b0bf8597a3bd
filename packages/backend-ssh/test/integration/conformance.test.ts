import { describeEnvironment } from "@codecall/conformance";
import { createEnvironment } from "../../src/index.js";
import { connectionOptions, sshd } from "./sshd.js";

describeEnvironment({
  name: "ssh (files over SFTP)",
  create: () => createEnvironment(connectionOptions()),
  // The default channel limit (8, under OpenSSH's MaxSessions of 10): the suite runs twice as
  // many commands at once on the one connection, which the limiter queues.
  capabilities: { hostSockets: false, streamingStdio: true, maxConcurrentExec: 8 },
  unavailableReason: sshd.unavailableReason,
  testTimeoutMs: 60_000,
});

describeEnvironment({
  name: "ssh (files over exec)",
  create: () => createEnvironment({ ...connectionOptions(), sftp: false }),
  // The default channel limit (8, under OpenSSH's MaxSessions of 10): the suite runs twice as
  // many commands at once on the one connection, which the limiter queues.
  capabilities: { hostSockets: false, streamingStdio: true, maxConcurrentExec: 8 },
  unavailableReason: sshd.unavailableReason,
  testTimeoutMs: 60_000,
});
