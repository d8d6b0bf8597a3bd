// The shared transport suite on the local backend (its spawn keeps stdio open, so the relay runs
// there as it would in a container); docker and ssh run the same suite in their packages.
import { createEnvironment } from "@codecall/backend-local";
import { describeBackpressure, describeTransport, SOCKET_MALFORMED_INPUT } from "@codecall/conformance";
import { createTransport } from "../../src/index.js";

describeTransport({
  name: "stream on local",
  transport: () => createTransport(),
  createEnvironment: () => createEnvironment(),
  malformedInput: SOCKET_MALFORMED_INPUT,
});

describeBackpressure({
  name: "stream on local",
  transport: () => createTransport(),
  createEnvironment: () => createEnvironment(),
});
