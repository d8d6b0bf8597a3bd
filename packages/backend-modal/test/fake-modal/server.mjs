#!/usr/bin/env node
// A fake Modal API for tests: the control plane and the command router on one plaintext gRPC port
// of 127.0.0.1, answering the real, unmodified `modal` SDK (MODAL_SERVER_URL=http://127.0.0.1:PORT;
// the SDK dials the router without TLS because that host is local). Commands run as child
// processes of this one. Configured by the environment:
//   FAKE_MODAL_STATE         directory for sandbox homes and calls.jsonl (required)
//   FAKE_MODAL_TOKEN_ID/…SECRET  the one accepted credential pair
//   FAKE_MODAL_IMAGES        comma-separated registry tags that exist
// Prints {"port":N} once listening. Reads control lines (JSON) on stdin and answers each with
// {"ok":ID}: {"id":1,"op":"fail","method":"TaskExecStdinWrite","code":8,"times":1,"after":0}. When stdin
// closes (the test process is gone) it ends every sandbox and exits.
import { createInterface } from "node:readline";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { loadPackageDefinition, Server, ServerCredentials, status } from "@grpc/grpc-js";
import { loadSync } from "@grpc/proto-loader";
import { commandRouter } from "./command-router.mjs";
import { controlPlane } from "./control-plane.mjs";
import { STATUS } from "./fake-sandbox.mjs";
import { FakeState } from "./fake-state.mjs";

/** gRPC's default: a larger message (one huge stdin write) is refused with RESOURCE_EXHAUSTED. */
const MAX_MESSAGE_BYTES = 4 * 1024 * 1024;

const here = path.dirname(fileURLToPath(import.meta.url));
const definitions = loadPackageDefinition(
  loadSync(["modal_client.proto", "task_command_router.proto"], {
    includeDirs: [here],
    keepCase: true,
    longs: Number,
    enums: Number,
    defaults: true,
  }),
);

const state = new FakeState({
  tokenId: process.env.FAKE_MODAL_TOKEN_ID ?? "",
  tokenSecret: process.env.FAKE_MODAL_TOKEN_SECRET ?? "",
  images: (process.env.FAKE_MODAL_IMAGES ?? "").split(",").filter(Boolean),
  stateDir: process.env.FAKE_MODAL_STATE ?? "",
});
if (!state.config.stateDir) throw new Error("FAKE_MODAL_STATE is required");

/** A handler's view of its call: the metadata and a signal that aborts when the client cancels. */
function callContext(call) {
  const cancelled = new AbortController();
  call.on("cancelled", () => cancelled.abort());
  return { metadata: call.metadata, signal: cancelled.signal };
}

const asStatus = (error) => ({ code: error.code ?? status.INTERNAL, details: error.details ?? String(error.message ?? error) });

/** grpc-js handlers from `(request, context) => response` ones: logged, fault-injectable, errors as statuses. */
function serve(handlers, streaming = new Set()) {
  return Object.fromEntries(
    Object.entries(handlers).map(([method, handler]) => {
      if (streaming.has(method)) {
        return [
          method,
          (call) => {
            state.record(method, call.request);
            const fault = state.takeFault(method, call.request);
            const context = callContext(call);
            const write = (message) => new Promise((resolve) => (call.write(message) ? resolve() : call.once("drain", resolve)));
            Promise.resolve()
              .then(() => {
                if (fault) throw fault;
                return handler(call.request, { ...context, write });
              })
              .then(
                () => call.end(),
                (error) => call.emit("error", asStatus(error)),
              );
          },
        ];
      }
      return [
        method,
        (call, callback) => {
          state.record(method, call.request);
          const fault = state.takeFault(method, call.request);
          const context = callContext(call);
          Promise.resolve()
            .then(() => {
              if (fault) throw fault;
              return handler(call.request, context);
            })
            .then(
              (response) => callback(null, response),
              (error) => callback(asStatus(error)),
            );
        },
      ];
    }),
  );
}

const server = new Server({ "grpc.max_receive_message_length": MAX_MESSAGE_BYTES });
server.addService(definitions.modal.client.ModalClient.service, serve(controlPlane(state)));
server.addService(definitions.modal.task_command_router.TaskCommandRouter.service, serve(commandRouter(state), new Set(["TaskExecStdioRead"])));

server.bindAsync("127.0.0.1:0", ServerCredentials.createInsecure(), (error, port) => {
  if (error) throw error;
  state.routerUrl = `https://127.0.0.1:${port}`;
  process.stdout.write(`${JSON.stringify({ port })}\n`);
});

function shutdown() {
  for (const sandbox of state.sandboxes.values()) sandbox.finish(STATUS.TERMINATED, "the fake server stopped");
  server.forceShutdown();
  process.exit(0);
}

createInterface({ input: process.stdin })
  .on("line", (line) => {
    const command = JSON.parse(line);
    if (command.op === "fail")
      state.addFault(command.method, command.code, command.details ?? "injected fault", command.times ?? 1, command.after ?? 0, command.sandboxId);
    process.stdout.write(`${JSON.stringify({ ok: command.id })}\n`);
  })
  .on("close", shutdown);
process.on("SIGTERM", shutdown);
