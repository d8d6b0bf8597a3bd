import { describe, expect, it } from "vitest";
import { containerConfig } from "../src/container-config.js";
import { parseDockerOptions } from "../src/parse-options.js";

const configFor = (raw: Record<string, unknown>) => {
  const options = parseDockerOptions({ image: "img", ...raw });
  return containerConfig({ ...options, image: options.image! }, "s3ss10n", "codecall-s3ss10n");
};

describe("containerConfig", () => {
  it("locks the container down by default", () => {
    const config = configFor({});
    expect(config.HostConfig).toEqual({
      Init: true,
      Privileged: false,
      CapDrop: ["ALL"],
      CapAdd: [],
      SecurityOpt: ["no-new-privileges"],
      PidsLimit: 512,
    });
    // The image's entrypoint must not replace the keep-alive process.
    expect(config.Entrypoint).toEqual([]);
    expect(config.Cmd?.[0]).toBe("sh");
  });

  it("names the container and uses the name as its hostname", () => {
    expect(configFor({})).toMatchObject({ name: "codecall-s3ss10n", Hostname: "codecall-s3ss10n", Image: "img" });
    const odd = containerConfig({ ...parseDockerOptions({ image: "img" }), image: "img" }, "id", "my_box.v2");
    expect(odd.Hostname).toBe("my-box-v2");
  });

  it("labels the container so a later run can find it, and keeps codecall's labels authoritative", () => {
    const labels = configFor({ labels: { team: "ml", "codecall.managed": "false", "codecall.session": "forged" } }).Labels!;
    expect(labels).toMatchObject({ team: "ml", "codecall.managed": "true", "codecall.session": "s3ss10n", "codecall.pid": String(process.pid) });
    expect(Date.parse(labels["codecall.created"]!)).not.toBeNaN();
    expect(labels["codecall.host"]).toBeTruthy();
  });

  it("passes limits, network, mounts, user, env and workdir through", () => {
    const config = configFor({
      memory: "256m",
      cpus: 0.5,
      pidsLimit: 64,
      network: "none",
      mounts: ["/srv:/srv:ro"],
      user: "1000:1000",
      env: { A: "1" },
      workdir: "/work",
      capDrop: ["NET_RAW"],
      capAdd: ["CHOWN"],
    });
    expect(config).toMatchObject({ User: "1000:1000", Env: ["A=1"], WorkingDir: "/work" });
    expect(config.HostConfig).toMatchObject({
      Memory: 256 * 1024 ** 2,
      MemorySwap: 256 * 1024 ** 2,
      NanoCpus: 500_000_000,
      PidsLimit: 64,
      NetworkMode: "none",
      Binds: ["/srv:/srv:ro"],
      CapDrop: ["NET_RAW"],
      CapAdd: ["CHOWN"],
    });
  });

  it("gives a read-only container a tmpfs /tmp unless tmpfs says otherwise", () => {
    expect(configFor({ readOnly: true }).HostConfig).toMatchObject({ ReadonlyRootfs: true, Tmpfs: { "/tmp": "rw,nosuid,nodev,mode=1777" } });
    expect(configFor({ readOnly: true, tmpfs: { "/scratch": "size=64m" } }).HostConfig?.Tmpfs).toEqual({ "/scratch": "size=64m" });
  });
});
