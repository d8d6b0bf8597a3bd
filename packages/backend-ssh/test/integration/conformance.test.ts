import { describeEnvironment } from "@codecall/conformance";
import { createEnvironment } from "../../src/index.js";
import { connectionOptions, sshd } from "./sshd.js";

// Through the environment agent (one channel for everything; files through it too), and as plain
// execs, with files over SFTP and over exec. The default channel limit (8, under OpenSSH's
// MaxSessions of 10) is declared either way: the suite runs twice as many commands at once on the
// one connection, which the limiter queues (plain execs) or the agent runs side by side.
for (const [way, options] of [
  ["through the agent", {}],
  ["plain execs, files over SFTP", { environmentAgent: false }],
  ["plain execs, files over exec", { environmentAgent: false, sftp: false }],
] as const) {
  describeEnvironment({
    name: `ssh (${way})`,
    create: () => createEnvironment({ ...connectionOptions(), ...options }),
    capabilities: { hostSockets: false, streamingStdio: true, maxConcurrentExec: 8 },
    unavailableReason: sshd.unavailableReason,
    testTimeoutMs: 60_000,
  });
}
