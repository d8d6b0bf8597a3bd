/**
 * The create request for a new container: a keep-alive process for commands to be exec'd beside,
 * the user's settings, and locked-down defaults (no capabilities, no privilege escalation, a pids
 * limit, an init that reaps orphans).
 */
import type Docker from "dockerode";
import { managedLabels } from "./container-labels.js";
import type { ParsedDockerOptions } from "./parse-options.js";

/**
 * Keeps the container alive between commands. A shell loop rather than `sleep infinity`, which
 * busybox's sleep does not understand; the image needs `sh` anyway.
 */
const KEEP_ALIVE = ["sh", "-c", "while :; do sleep 3600; done"];

export function containerConfig(options: ParsedDockerOptions & { image: string }, session: string, name: string): Docker.ContainerCreateOptions {
  const readOnlyTmp = options.readOnly && options.tmpfs === undefined ? { "/tmp": "rw,nosuid,nodev,mode=1777" } : undefined;
  const tmpfs = options.tmpfs ?? readOnlyTmp;
  const hostConfig: Docker.HostConfig = {
    Init: true,
    Privileged: false,
    CapDrop: options.capDrop,
    CapAdd: options.capAdd,
    SecurityOpt: ["no-new-privileges"],
    PidsLimit: options.pidsLimit,
    ...(options.memoryBytes === undefined ? {} : { Memory: options.memoryBytes, MemorySwap: options.memoryBytes }),
    ...(options.nanoCpus === undefined ? {} : { NanoCpus: options.nanoCpus }),
    ...(options.network === undefined ? {} : { NetworkMode: options.network }),
    ...(options.mounts === undefined ? {} : { Binds: options.mounts }),
    ...(options.readOnly ? { ReadonlyRootfs: true } : {}),
    ...(tmpfs === undefined ? {} : { Tmpfs: tmpfs }),
  };
  return {
    name,
    Hostname: hostnameFor(name),
    Image: options.image,
    // The image's entrypoint (a server, an init script) must not replace the keep-alive.
    Entrypoint: [],
    Cmd: KEEP_ALIVE,
    Labels: managedLabels(session, options.labels),
    Env: Object.entries(options.env ?? {}).map(([key, value]) => `${key}=${value}`),
    ...(options.workdir === undefined ? {} : { WorkingDir: options.workdir }),
    ...(options.user === undefined ? {} : { User: options.user }),
    HostConfig: hostConfig,
  };
}

/** The container's hostname: its name, made a valid host name (so `hostname` in a script names the container). */
function hostnameFor(name: string): string {
  return name.replace(/[^A-Za-z0-9-]/g, "-").slice(0, 63);
}
