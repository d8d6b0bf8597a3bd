import { describeEnvironment } from "@codecall/conformance";
import { createEnvironment } from "../../src/index.js";
import { connectionOptions, sshd } from "./sshd.js";

describeEnvironment({
  name: "ssh (files over SFTP)",
  create: () => createEnvironment(connectionOptions()),
  unavailableReason: sshd.unavailableReason,
  testTimeoutMs: 60_000,
});

describeEnvironment({
  name: "ssh (files over exec)",
  create: () => createEnvironment({ ...connectionOptions(), sftp: false }),
  unavailableReason: sshd.unavailableReason,
  testTimeoutMs: 60_000,
});
