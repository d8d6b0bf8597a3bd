import { createEnvironment } from "@codecall/backend-local";
import { describeSessions } from "@codecall/conformance";
import { createTransport } from "../../src/index.js";

// The local backend's sessions: @codecall/backend-local cannot depend on a transport (the
// transports test against it), so its session suite runs here, with the transport made for it.
describeSessions({
  name: "local + uds",
  createEnvironment: ({ env }) => createEnvironment({ env: { ...process.env, ...env } }),
  transport: () => createTransport(),
});
