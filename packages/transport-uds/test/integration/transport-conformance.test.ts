import { createEnvironment } from "@codecall/backend-local";
import { describeBackpressure, describeTransport, SOCKET_MALFORMED_INPUT } from "@codecall/conformance";
import { createTransport } from "../../src/index.js";

describeTransport({
  name: "uds on local",
  transport: () => createTransport(),
  createEnvironment: () => createEnvironment(),
  malformedInput: SOCKET_MALFORMED_INPUT,
});

describeBackpressure({
  name: "uds on local",
  transport: () => createTransport(),
  createEnvironment: () => createEnvironment(),
});
