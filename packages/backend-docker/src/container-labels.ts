/**
 * The labels codecall puts on every container it creates. They let a later run find containers
 * that a crashed host left behind, tell whose they were and how old they are
 * (see `cleanupStaleContainers`).
 */
import { hostname } from "node:os";

/** Marks a container as created (and owned) by codecall. */
export const MANAGED_LABEL = "codecall.managed";
/** The environment's random session id (also in the default container name). */
export const SESSION_LABEL = "codecall.session";
/** When the container was created (ISO 8601). */
export const CREATED_LABEL = "codecall.created";
/** The machine whose process created the container. */
export const HOST_LABEL = "codecall.host";
/** The pid of that process, so a later run on the same machine can tell whether it still lives. */
export const PID_LABEL = "codecall.pid";

/** The labels of a new container; they win over the user's labels of the same name. */
export function managedLabels(session: string, userLabels: Readonly<Record<string, string>> = {}): Record<string, string> {
  return {
    ...userLabels,
    [MANAGED_LABEL]: "true",
    [SESSION_LABEL]: session,
    [CREATED_LABEL]: new Date().toISOString(),
    [HOST_LABEL]: hostname(),
    [PID_LABEL]: String(process.pid),
  };
}
