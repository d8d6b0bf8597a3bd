/**
 * Finds and removes the containers that codecall created and nobody will remove any more: their
 * host process crashed or was killed before `close()`. They carry codecall's labels (see
 * container-labels.ts), which say when, on which machine and by which process they were made.
 */
import { hostname } from "node:os";
import { errorMessage } from "@codecall/core";
import { CREATED_LABEL, HOST_LABEL, MANAGED_LABEL, PID_LABEL } from "./container-labels.js";
import { DEFAULT_ENGINE_TIMEOUT_MS, dockerClient, pingEngine } from "./docker-connection.js";
import type { DockerConnectionOptions } from "./docker-options.js";

export interface CleanupOptions extends DockerConnectionOptions {
  /** Leave containers younger than this alone (ms). Default 0. */
  olderThanMs?: number;
}

/** A container {@link cleanupStaleContainers} removed. */
export interface RemovedContainer {
  id: string;
  name: string;
  /** When it was created (ISO 8601). */
  created: string;
}

/**
 * Removes codecall's containers that are at least `olderThanMs` old and whose creating process is
 * gone. A container made by a process on this machine is kept while that process runs; for one
 * made on another machine, its age alone decides. Resolves to what was removed.
 */
export async function cleanupStaleContainers(options: CleanupOptions = {}): Promise<RemovedContainer[]> {
  const docker = dockerClient(options);
  await pingEngine(docker, { ...options, engineTimeoutMs: options.engineTimeoutMs ?? DEFAULT_ENGINE_TIMEOUT_MS });
  const candidates = await docker.listContainers({ all: true, filters: { label: [`${MANAGED_LABEL}=true`] } });
  const removed: RemovedContainer[] = [];
  for (const summary of candidates) {
    const labels = summary.Labels;
    const createdMs = Date.parse(labels[CREATED_LABEL] ?? "") || summary.Created * 1000;
    if (Date.now() - createdMs < (options.olderThanMs ?? 0)) continue;
    if (labels[HOST_LABEL] === hostname() && processAlive(Number(labels[PID_LABEL]))) continue;
    try {
      await docker.getContainer(summary.Id).remove({ force: true });
    } catch (error) {
      // Removed meanwhile by someone else: the goal is reached all the same.
      if (!/no such container|already in progress/i.test(errorMessage(error))) throw error;
      continue;
    }
    removed.push({ id: summary.Id, name: (summary.Names[0] ?? summary.Id).replace(/^\//, ""), created: new Date(createdMs).toISOString() });
  }
  return removed;
}

function processAlive(pid: number): boolean {
  if (!Number.isSafeInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it exists, it is just not ours to signal.
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}
