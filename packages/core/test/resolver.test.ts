import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it, vi } from "vitest";
import { CodecallError } from "../src/errors.js";
import { defineOptions } from "../src/options/define-options.js";
import { loadBackend, resolveEnvironment, resolveTransports, type ModuleImporter } from "../src/resolver.js";
import type { Environment } from "../src/environment.js";
import type { Transport } from "../src/transport.js";
import { captureDebug } from "./support/debug.js";
import { fakeEnvironment } from "./support/rpc.js";

function notFound(specifier: string): Error {
  return Object.assign(new Error(`Cannot find package '${specifier}' imported from /app/node_modules/@codecall/core/dist/index.js`), {
    code: "ERR_MODULE_NOT_FOUND",
  });
}

const fakeTransport = (id: string): Transport => ({
  specificationVersion: "v1",
  id,
  supports: () => true,
  open: async () => ({ guestEnv: {}, close: async () => {} }),
  guestClient: () => "",
});

/** An importer that knows only the given modules; anything else is "not installed". */
function importer(modules: Record<string, unknown>, seen: string[] = []): ModuleImporter {
  return async (specifier) => {
    seen.push(specifier);
    if (Object.hasOwn(modules, specifier)) return modules[specifier];
    throw notFound(specifier);
  };
}

async function rejection(promise: Promise<unknown>): Promise<CodecallError> {
  const error = await promise.then(
    () => undefined,
    (reason: unknown) => reason,
  );
  if (!CodecallError.isInstance(error)) throw new Error(`expected a CodecallError, got ${String(error)}`);
  return error;
}

describe("resolveEnvironment", () => {
  it("passes an environment instance through", async () => {
    expect(await resolveEnvironment(fakeEnvironment, { importModule: importer({}) })).toBe(fakeEnvironment);
  });

  it("creates an environment from a backend name with its options", async () => {
    const calls: unknown[] = [];
    const seen: string[] = [];
    const module = { createEnvironment: async (options: unknown) => (calls.push(options), fakeEnvironment) };
    const importModule = importer({ "@codecall/backend-docker": module }, seen);
    expect(await resolveEnvironment("docker", { importModule })).toBe(fakeEnvironment);
    expect(await resolveEnvironment({ backend: "docker", options: { image: "python:3.12" } }, { importModule })).toBe(fakeEnvironment);
    expect(seen).toEqual(["@codecall/backend-docker", "@codecall/backend-docker"]);
    expect(calls).toEqual([{}, { image: "python:3.12" }]);
  });

  it("loads a third-party backend given as a module specifier", async () => {
    const seen: string[] = [];
    const importModule = importer(
      { "@acme/backend": { createEnvironment: () => fakeEnvironment }, "./local-backend.js": { createEnvironment: () => fakeEnvironment } },
      seen,
    );
    expect(await resolveEnvironment("@acme/backend", { importModule })).toBe(fakeEnvironment);
    expect(await resolveEnvironment("./local-backend.js", { importModule })).toBe(fakeEnvironment);
    expect(seen).toEqual(["@acme/backend", "./local-backend.js"]);
  });

  it("loads a third-party backend by a package name without a scope", async () => {
    const importModule = importer({ "acme-backend": { createEnvironment: () => fakeEnvironment } });
    expect(await resolveEnvironment({ backend: "acme-backend" }, { importModule })).toBe(fakeEnvironment);
    expect((await loadBackend("acme-backend", { importModule })).specifier).toBe("acme-backend");
  });

  it("takes a backend given as a relative path from the working directory, not from core's own directory", async () => {
    const dir = await mkdtemp(path.join(tmpdir(), "codecall-resolver-"));
    try {
      const file = path.join(dir, "my-backend.mjs");
      await writeFile(file, "export function createEnvironment(options) { return { ...options.base, backendId: 'mine' }; }\n");
      // The program runs elsewhere than this package: its working directory is the file's.
      const cwd = vi.spyOn(process, "cwd").mockReturnValue(dir);
      try {
        for (const specifier of ["./my-backend.mjs", `../${path.basename(dir)}/my-backend.mjs`, file]) {
          const environment = await resolveEnvironment({ backend: specifier, options: { base: fakeEnvironment } });
          expect(environment.backendId).toBe("mine");
        }
      } finally {
        cwd.mockRestore();
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("never advises npm install for a missing path, even when the loader's message quotes it", async () => {
    const importModule: ModuleImporter = async (specifier) => {
      throw Object.assign(new Error(`Cannot find module '/app/dist/dist/index.js'. Did you mean to import "../../${specifier.slice(2)}"?`), {
        code: "ERR_MODULE_NOT_FOUND",
      });
    };
    const error = await rejection(resolveEnvironment("./dist/index.js", { importModule }));
    expect(error.code).toBe("UNKNOWN_BACKEND");
    expect(error.message).toMatch(/^Could not load \.\/dist\/index\.js: Cannot find module/);
    expect(error.message).not.toContain("npm install");
  });

  it("refuses an unknown backend name, listing the choices", async () => {
    const error = await rejection(resolveEnvironment("kubernetes", { importModule: importer({}) }));
    expect(error.code).toBe("UNKNOWN_BACKEND");
    expect(error.message).toBe(
      'Unknown backend "kubernetes". Choose one of: local, docker, ssh, modal, daytona, singularity, apptainer (or give a package name)',
    );
    expect(error.details).toEqual({ name: "kubernetes" });
  });

  it("suggests the closest known name for a typo that is no installed package either", async () => {
    const backend = await rejection(resolveEnvironment("dokcer", { importModule: importer({}) }));
    expect(backend.message).toBe(
      'Unknown backend "dokcer". Did you mean "docker"? Choose one of: local, docker, ssh, modal, daytona, singularity, apptainer (or give a package name)',
    );
    const transport = await rejection(resolveTransports("sream", { importModule: importer({}) }));
    expect(transport.message).toBe(
      'Unknown transport "sream". Did you mean "stream"? Choose one of: uds, stream, file, auto (or give a package name)',
    );
  });

  it.each(["constructor", "__proto__", "toString", "hasOwnProperty"])(
    "refuses %s as an unknown backend and transport (not Object's member)",
    async (name) => {
      const backend = await rejection(resolveEnvironment(name, { importModule: importer({}) }));
      expect(backend.code).toBe("UNKNOWN_BACKEND");
      expect(backend.message).toBe(
        `Unknown backend "${name}". Choose one of: local, docker, ssh, modal, daytona, singularity, apptainer (or give a package name)`,
      );
      const transport = await rejection(resolveTransports(name, { importModule: importer({}) }));
      expect(transport.code).toBe("UNKNOWN_TRANSPORT");
      expect(transport.message).toBe(`Unknown transport "${name}". Choose one of: uds, stream, file, auto (or give a package name)`);
    },
  );

  it("names the package to install when the backend is missing", async () => {
    const error = await rejection(resolveEnvironment("docker", { importModule: importer({}) }));
    expect(error.code).toBe("PACKAGE_NOT_INSTALLED");
    expect(error.message).toContain("npm install @codecall/backend-docker");
    expect(error.details).toEqual({ package: "@codecall/backend-docker" });
    expect((error.cause as { code: string }).code).toBe("ERR_MODULE_NOT_FOUND");
  });

  it("does not blame the backend package when one of its own dependencies is missing", async () => {
    const importModule: ModuleImporter = async () => {
      throw notFound("dockerode");
    };
    const error = await rejection(resolveEnvironment("docker", { importModule }));
    expect(error.code).toBe("UNKNOWN_BACKEND");
    expect(error.message).toMatch(/^Could not load @codecall\/backend-docker: Cannot find package 'dockerode'/);
  });

  it("explains a module that is not a backend", async () => {
    const error = await rejection(resolveEnvironment("ssh", { importModule: importer({ "@codecall/backend-ssh": { somethingElse: 1 } }) }));
    expect(error.code).toBe("UNKNOWN_BACKEND");
    expect(error.message).toBe("@codecall/backend-ssh does not export createEnvironment(), so it is not a codecall backend");
  });

  it("uses the real dynamic import by default", async () => {
    const missingPackage = await rejection(resolveEnvironment("@codecall-test/definitely-missing-backend"));
    expect(missingPackage.code).toBe("PACKAGE_NOT_INSTALLED");
    expect(missingPackage.message).toContain("npm install @codecall-test/definitely-missing-backend");
    // A missing relative file is reported with the resolved path, so no "npm install" advice.
    const missingFile = await rejection(resolveEnvironment("./definitely-missing-backend.js"));
    expect(missingFile.code).toBe("UNKNOWN_BACKEND");
    expect(missingFile.message).toMatch(/^Could not load \.\/definitely-missing-backend\.js: Cannot find module .*definitely-missing-backend\.js/);
  });
});

describe("loadBackend", () => {
  const environmentOptions = defineOptions("acme", { image: { type: "string", description: "image" } });

  it("hands out the option declaration a backend exports as environmentOptions, creating nothing", async () => {
    const created: unknown[] = [];
    const module = { environmentOptions, createEnvironment: async (options: unknown) => (created.push(options), fakeEnvironment) };
    const plugin = await loadBackend("@acme/backend", { importModule: importer({ "@acme/backend": module }) });
    expect(plugin.specifier).toBe("@acme/backend");
    expect(plugin.environmentOptions).toBe(environmentOptions);
    expect(created).toEqual([]);
    expect(await plugin.createEnvironment({ image: "x" })).toBe(fakeEnvironment);
    expect(created).toEqual([{ image: "x" }]);
  });

  it("takes a backend without a declaration, and refuses an export of that name that is not one", async () => {
    const bare = await loadBackend("@acme/bare", { importModule: importer({ "@acme/bare": { createEnvironment: () => fakeEnvironment } }) });
    expect(bare.environmentOptions).toBeUndefined();
    const odd = { createEnvironment: () => fakeEnvironment, environmentOptions: { image: "string" } };
    const error = await rejection(loadBackend("@acme/odd", { importModule: importer({ "@acme/odd": odd }) }));
    expect(error.code).toBe("UNKNOWN_BACKEND");
    expect(error.message).toBe(
      "@acme/odd exports environmentOptions, but not as an option declaration (defineOptions() from @codecall/core/backend-kit)",
    );
  });

  it("checks the contract version of what createEnvironment returns", async () => {
    const module = { createEnvironment: () => ({ ...fakeEnvironment, specificationVersion: "v0" }) };
    const plugin = await loadBackend("@acme/old", { importModule: importer({ "@acme/old": module }) });
    expect((await rejection(plugin.createEnvironment())).code).toBe("INCOMPATIBLE_PLUGIN");
  });
});

describe("resolveTransports", () => {
  const uds = fakeTransport("uds");
  const stream = fakeTransport("stream");
  const file = fakeTransport("file");
  const all = {
    "@codecall/transport-uds": { createTransport: () => uds },
    "@codecall/transport-stream": { createTransport: () => stream },
    "@codecall/transport-file": { createTransport: async () => file },
  };

  it("passes instances through and keeps the given order", async () => {
    const custom = fakeTransport("custom");
    expect(await resolveTransports(custom, { importModule: importer({}) })).toEqual([custom]);
    expect(await resolveTransports(["file", custom, "uds"], { importModule: importer(all) })).toEqual([file, custom, uds]);
  });

  it('expands "auto" in the order uds, stream, file', async () => {
    expect(await resolveTransports("auto", { importModule: importer(all) })).toEqual([uds, stream, file]);
  });

  it('skips transports that are not installed under "auto"', async () => {
    const { "@codecall/transport-uds": _, "@codecall/transport-stream": __, ...onlyFile } = all;
    expect(await resolveTransports("auto", { importModule: importer(onlyFile) })).toEqual([file]);
  });

  it('says in a transport debug line which packages "auto" skipped', async () => {
    const { "@codecall/transport-stream": _, ...withoutStream } = all;
    const debug = captureDebug("transport");
    try {
      await resolveTransports("auto", { importModule: importer(withoutStream) });
    } finally {
      debug.stop();
    }
    expect(debug.lines).toEqual(["codecall:transport auto: stream skipped, @codecall/transport-stream is not installed"]);
  });

  it('fails under "auto" when no transport is installed, naming packages', async () => {
    const error = await rejection(resolveTransports("auto", { importModule: importer({}) }));
    expect(error.code).toBe("PACKAGE_NOT_INSTALLED");
    expect(error.message).toContain("npm install @codecall/transport-uds @codecall/transport-file");
  });

  it('does not hide a broken transport under "auto"', async () => {
    const error = await rejection(resolveTransports("auto", { importModule: importer({ ...all, "@codecall/transport-stream": {} }) }));
    expect(error.code).toBe("UNKNOWN_TRANSPORT");
    expect(error.message).toContain("@codecall/transport-stream does not export createTransport()");
  });

  describe('"auto" for a known environment', () => {
    /** A transport `id` that supports only the backend `backendId`. */
    const only = (id: string, backendId: string): Transport => ({
      ...fakeTransport(id),
      supports: (environment) => environment.backendId === backendId,
    });

    it("loads the transports after the first that supports the environment only when one is opened", async () => {
      const seen: string[] = [];
      const transports = await resolveTransports("auto", { importModule: importer(all, seen), environment: fakeEnvironment });
      expect(transports[0]).toBe(uds);
      expect(transports.map((transport) => transport.id)).toEqual(["uds", "stream", "file"]);
      expect(seen).toEqual(["@codecall/transport-uds"]);
    });

    it("loads on until one supports the environment, keeping the ones before", async () => {
      const seen: string[] = [];
      const modules = { ...all, "@codecall/transport-uds": { createTransport: () => only("uds", "local") } };
      const transports = await resolveTransports("auto", { importModule: importer(modules, seen), environment: fakeEnvironment });
      expect(transports.map((transport) => transport.id)).toEqual(["uds", "stream", "file"]);
      expect(transports[0]!.supports(fakeEnvironment)).toBe(false);
      expect(transports[1]).toBe(stream);
      expect(seen).toEqual(["@codecall/transport-uds", "@codecall/transport-stream"]);
    });

    it("a fallback serves the run it is opened for, with its own guest client", async () => {
      const session = { guestEnv: { CODECALL_FILE_DIR: "/run" }, close: async () => {} };
      const opened: unknown[] = [];
      const realFile: Transport = {
        ...fakeTransport("file"),
        open: async (environment, run) => (opened.push([environment, run]), session),
        guestClient: (language) => `client for ${language}`,
      };
      const seen: string[] = [];
      const modules = { ...all, "@codecall/transport-file": { createTransport: () => realFile } };
      const [, , fallback] = await resolveTransports("auto", { importModule: importer(modules, seen), environment: fakeEnvironment });
      const run = { runId: "r" } as unknown as Parameters<Transport["open"]>[1];
      expect(fallback!.supports(fakeEnvironment)).toBe(true);
      expect(await fallback!.open(fakeEnvironment, run)).toBe(session);
      expect(opened).toEqual([[fakeEnvironment, run]]);
      expect(fallback!.guestClient("python")).toBe("client for python");
      expect(seen).toEqual(["@codecall/transport-uds", "@codecall/transport-file"]);
    });

    it("a fallback that does not support the environment, or is not installed, fails to open saying why", async () => {
      const modules = {
        "@codecall/transport-uds": all["@codecall/transport-uds"],
        "@codecall/transport-file": { createTransport: () => only("file", "docker") },
      };
      const [, stream, file] = await resolveTransports("auto", { importModule: importer(modules), environment: fakeEnvironment });
      const run = {} as Parameters<Transport["open"]>[1];
      const missing = await rejection(stream!.open(fakeEnvironment, run));
      expect(missing.code).toBe("PACKAGE_NOT_INSTALLED");
      expect(missing.message).toContain("npm install @codecall/transport-stream");
      const unsupported = await rejection(file!.open(fakeEnvironment, run));
      expect(unsupported.code).toBe("NO_SUPPORTED_TRANSPORT");
      expect(unsupported.message).toBe("it does not support the fake backend");
      expect(() => file!.guestClient("python")).toThrow(/falls back to it/);
    });

    it("loads them all when none supports the environment, so the run's error names each", async () => {
      const seen: string[] = [];
      await resolveTransports("auto", { importModule: importer({}, seen), environment: fakeEnvironment }).catch(() => {});
      expect(seen).toEqual(["@codecall/transport-uds", "@codecall/transport-stream", "@codecall/transport-file"]);
      const modules = { "@codecall/transport-uds": { createTransport: () => only("uds", "local") } };
      expect(await resolveTransports("auto", { importModule: importer(modules), environment: fakeEnvironment })).toEqual([
        expect.objectContaining({ id: "uds" }),
      ]);
    });
  });

  it("passes per-transport options", async () => {
    const received: unknown[] = [];
    const module = { createTransport: (options: unknown) => (received.push(options), file) };
    await resolveTransports(["file"], { importModule: importer({ "@codecall/transport-file": module }), transportOptions: { file: { pollMs: 5 } } });
    expect(received).toEqual([{ pollMs: 5 }]);
  });

  it("refuses an unknown transport name, listing the choices with auto", async () => {
    const error = await rejection(resolveTransports("carrier-pigeon", { importModule: importer(all) }));
    expect(error.code).toBe("UNKNOWN_TRANSPORT");
    expect(error.message).toBe('Unknown transport "carrier-pigeon". Choose one of: uds, stream, file, auto (or give a package name)');
  });

  it("names the package to install for an explicit transport", async () => {
    const error = await rejection(resolveTransports("uds", { importModule: importer({}) }));
    expect(error.code).toBe("PACKAGE_NOT_INSTALLED");
    expect(error.message).toContain("npm install @codecall/transport-uds");
  });
});

describe("contract versions", () => {
  const futureEnvironment = { ...fakeEnvironment, specificationVersion: "v2" } as unknown as Environment;
  const { specificationVersion: _dropped, ...unversioned } = fakeTransport("old") as unknown as Record<string, unknown>;

  it("refuses a backend package of another Environment version, naming both", async () => {
    const importModule = importer({ "@acme/backend": { createEnvironment: () => futureEnvironment } });
    const error = await rejection(resolveEnvironment("@acme/backend", { importModule }));
    expect(error.code).toBe("INCOMPATIBLE_PLUGIN");
    expect(error.message).toBe(
      "@acme/backend implements Environment specification v2, but this @codecall/core implements Environment specification v1. Install versions of the two that match.",
    );
    expect(error.details).toEqual({ kind: "environment", expected: "v1", found: "v2" });
  });

  it("refuses an environment instance of another version", async () => {
    const error = await rejection(resolveEnvironment(futureEnvironment, { importModule: importer({}) }));
    expect(error.code).toBe("INCOMPATIBLE_PLUGIN");
    expect(error.message).toContain('The environment you passed (backend "fake") implements Environment specification v2');
  });

  it("refuses a transport that states no version, by package and by instance", async () => {
    const importModule = importer({ "@acme/transport": { createTransport: () => unversioned } });
    const byName = await rejection(resolveTransports("@acme/transport", { importModule }));
    expect(byName.code).toBe("INCOMPATIBLE_PLUGIN");
    expect(byName.message).toBe(
      "@acme/transport states no specificationVersion (it predates versioned contracts), but this @codecall/core implements Transport specification v1. Install versions of the two that match.",
    );
    const byInstance = await rejection(resolveTransports([unversioned as unknown as Transport], { importModule }));
    expect(byInstance.message).toContain('The transport you passed ("old") states no specificationVersion');
  });
});
