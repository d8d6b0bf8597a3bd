// The fake's control plane (modal.client.ModalClient): credentials and auth tokens, apps, images
// (a registry tag builds when the registry "has" it), and the sandbox lifecycle the SDK drives.
import { randomBytes } from "node:crypto";
import { status } from "@grpc/grpc-js";
import { FakeSandbox, STATUS } from "./fake-sandbox.mjs";
import { issueToken } from "./tokens.mjs";

/** The longest SandboxWaitV2 long poll the fake holds (the SDK asks for 10 s; tests need no more). */
const MAX_WAIT_SECONDS = 55;

const fail = (code, details) => Object.assign(new Error(details), { code, details });

/**
 * @param {import("./fake-state.mjs").FakeState} state
 * @returns the ModalClient service's handlers, each `(request, call) => Promise<response>`
 */
export function controlPlane(state) {
  /** Every call but AuthTokenGet needs a token the fake issued. */
  const authenticated = (handler) => (request, call) => {
    const token = call.metadata.get("x-modal-auth-token")[0];
    if (typeof token !== "string" || !state.authTokens.has(token)) throw fail(status.UNAUTHENTICATED, "Invalid or missing auth token");
    return handler(request, call);
  };
  const sandbox = (id) => {
    const found = state.sandboxes.get(id);
    if (!found) throw fail(status.NOT_FOUND, `Sandbox ${id} not found`);
    return found;
  };

  return {
    AuthTokenGet(_request, call) {
      const id = call.metadata.get("x-modal-token-id")[0];
      const secret = call.metadata.get("x-modal-token-secret")[0];
      if (id !== state.config.tokenId || secret !== state.config.tokenSecret) {
        throw fail(status.UNAUTHENTICATED, "Token ID or secret is invalid. Run `modal token new` to get a new token.");
      }
      const token = issueToken({ token_id: id });
      state.authTokens.add(token);
      return { token };
    },

    AppGetOrCreate: authenticated((request) => {
      const key = `${request.environment_name}/${request.app_name}`;
      let appId = state.apps.get(key);
      if (!appId) {
        if (request.object_creation_type !== 1) throw fail(status.NOT_FOUND, `App '${request.app_name}' not found`);
        appId = `ap-${randomBytes(8).toString("hex")}`;
        state.apps.set(key, appId);
        state.appNames.set(appId, key);
      }
      return { app_id: appId };
    }),

    EnvironmentGetOrCreate: authenticated((request) => ({
      environment_id: "en-fake",
      metadata: { name: request.deployment_name || "main", settings: { image_builder_version: "2024.10" } },
    })),

    ImageGetOrCreate: authenticated((request) => {
      const from = request.image?.dockerfile_commands?.[0] ?? "";
      const tag = from.replace(/^FROM\s+/, "");
      const imageId = `im-${Buffer.from(tag).toString("hex").slice(0, 20)}`;
      if (!state.config.images.includes(tag)) {
        return {
          image_id: imageId,
          result: { status: STATUS.FAILURE, exception: `Failed to pull ${tag}: manifest unknown (the registry has no such image)` },
        };
      }
      state.images.add(imageId);
      return { image_id: imageId, result: { status: STATUS.SUCCESS } };
    }),

    ImageFromId: authenticated((request) => {
      if (!state.images.has(request.image_id)) throw fail(status.NOT_FOUND, `Could not find image with ID ${request.image_id}`);
      return { image_id: request.image_id };
    }),

    SandboxCreateV2: authenticated((request) => {
      const definition = request.definition ?? {};
      if (!state.appNames.has(request.app_id)) throw fail(status.NOT_FOUND, `App ${request.app_id} not found`);
      if (!state.images.has(definition.image_id)) throw fail(status.NOT_FOUND, `Could not find image with ID ${definition.image_id}`);
      if (definition.name && state.findByName(request.app_id, definition.name)) {
        throw fail(status.ALREADY_EXISTS, `A running Sandbox named '${definition.name}' already exists in the App`);
      }
      const env = {};
      for (const source of request.secret_sources ?? []) Object.assign(env, source.env?.contents ?? {});
      const tags = Object.fromEntries((request.tags ?? []).map((tag) => [tag.tag_name, tag.tag_value]));
      const created = new FakeSandbox({ appId: request.app_id, definition, tags, env, stateDir: state.config.stateDir });
      state.sandboxes.set(created.id, created);
      return {
        sandbox_id: created.id,
        task_id: created.taskId,
        command_router_access: { jwt: created.routerJwt, url: state.routerUrl },
      };
    }),

    SandboxGetTaskIdV2: authenticated((request) => {
      const found = sandbox(request.sandbox_id);
      return found.running ? { task_id: found.taskId } : { task_result: found.result };
    }),

    SandboxGetCommandRouterAccess: authenticated((request) => {
      const found = sandbox(request.sandbox_id);
      return { jwt: found.routerJwt, url: state.routerUrl };
    }),

    SandboxTerminateV2: authenticated((request) => {
      const found = sandbox(request.sandbox_id);
      const existing = found.result;
      found.finish(STATUS.TERMINATED, "Sandbox was terminated");
      return existing ? { existing_result: existing } : {};
    }),

    SandboxWaitV2: authenticated(async (request, call) => {
      const found = sandbox(request.sandbox_id);
      const seconds = Math.min(MAX_WAIT_SECONDS, Math.max(0, request.timeout || 0));
      const result = await found.waitFor(seconds * 1000, call.signal);
      return result ? { result, metadata: { result, app_id: found.appId } } : { metadata: { app_id: found.appId } };
    }),

    SandboxGetFromNameV2: authenticated((request) => byName(request)),
    SandboxGetFromName: authenticated((request) => byName(request)),
  };

  function byName(request) {
    const appId = state.apps.get(`${request.environment_name}/${request.app_name}`);
    const found = appId && state.findByName(appId, request.sandbox_name);
    if (!found) throw fail(status.NOT_FOUND, `Sandbox with name '${request.sandbox_name}' not found in App '${request.app_name}'`);
    return { sandbox_id: found.id };
  }
}
