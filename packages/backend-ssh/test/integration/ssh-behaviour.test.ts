// What only the SSH backend has to get right, against the real OpenSSH server: one connection
// shared by many commands under the session limit, host key verification, reconnects, commands
// lost with their connection, kills that get through when every channel is busy, and options.
import { execFile, spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync } from "node:fs";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { setTimeout as delay } from "node:timers/promises";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CodecallError } from "@codecall/core";
import { shellQuote } from "@codecall/core/backend-kit";
import { describeIntegration } from "@codecall/conformance";
import { utils } from "ssh2";
import { createEnvironment, SshEnvironment } from "../../src/index.js";
import { connectionPort, countCommand, leftoversCommand, SERVING_SSHD_PID } from "./remote-helpers.js";
import { connectionOptions, sshd } from "./sshd.js";

const run = promisify(execFile);

describeIntegration("ssh backend against OpenSSH", sshd.unavailableReason, () => {
  let environment: SshEnvironment;
  let scratch: string;
  let hostKey: { type: string; blob: string; fingerprint: string };

  beforeAll(async () => {
    environment = await createEnvironment(connectionOptions());
    scratch = await mkdtemp(path.join(tmpdir(), "codecall-ssh-test-"));
    const [, type, blob] = (await readFile(sshd.server!.knownHostsPath, "utf8")).trim().split(/\s+/);
    const fingerprint = `SHA256:${createHash("sha256").update(Buffer.from(blob!, "base64")).digest("base64").replace(/=+$/, "")}`;
    hostKey = { type: type!, blob: blob!, fingerprint };
  });

  afterAll(async () => {
    await environment?.close();
    await rm(scratch, { recursive: true, force: true });
  });

  describe("one connection", () => {
    it("runs 20 concurrent executeOneshot calls, all on the same connection", async () => {
      const before = await connectionPort(environment);
      const results = await Promise.all(
        Array.from({ length: 20 }, (_, index) => environment.executeOneshot(`sleep 0.2; set -- $SSH_CONNECTION; echo "${index} $2"`)),
      );
      expect(results.map((result) => result.exitCode)).toEqual(Array(20).fill(0));
      expect(results.map((result) => result.stdout)).toEqual(Array.from({ length: 20 }, (_, index) => `${index} ${before}\n`));
      expect(await connectionPort(environment)).toBe(before);
    });

    it("never has more commands running than maxChannels, as plain execs", async () => {
      const own = await createEnvironment({ ...connectionOptions(), maxChannels: 3, environmentAgent: false });
      try {
        const dir = (await own.tempDir()).trim();
        // Each command records how many are running (one file each) while it runs.
        const command = `touch ${dir}/$$; ls ${dir} | wc -l; sleep 0.3; rm ${dir}/$$`;
        const results = await Promise.all(Array.from({ length: 9 }, () => own.execute(command)));
        const peaks = results.map((result) => Number(result.stdout.trim()));
        expect(Math.max(...peaks)).toBeLessThanOrEqual(3);
        expect(own.capabilities.maxConcurrentExec).toBe(3);
        await own.executeOneshot(`rm -rf ${shellQuote(dir)}`);
      } finally {
        await own.close();
      }
    });

    it("runs more commands at once than maxChannels through the agent, on one channel", async () => {
      const own = await createEnvironment({ ...connectionOptions(), maxChannels: 3 });
      try {
        const dir = (await own.tempDir()).trim();
        // Each command waits until all nine run: with a cap of three channels, only the agent gets there.
        const command = `touch ${dir}/$$; while [ $(ls ${dir} | wc -l) -lt 9 ]; do sleep 0.05; done; echo all`;
        const results = await Promise.all(Array.from({ length: 9 }, () => own.execute(command, { timeoutMs: 30_000 })));
        expect(results.map((result) => result.stdout)).toEqual(Array(9).fill("all\n"));
        await own.remove(dir);
      } finally {
        await own.close();
      }
    });

    it("still kills a command when every channel is taken by long-running ones, as plain execs", async () => {
      const own = await createEnvironment({ ...connectionOptions(), maxChannels: 2, environmentAgent: false });
      const marker = `sleep 300.${Date.now() % 1_000_000}`;
      try {
        const stop = new AbortController();
        const first = own.execute(marker, { signal: stop.signal });
        const second = own.execute(marker, { signal: stop.signal });
        // Both slots are busy (seen from another connection): ending them takes kill commands that
        // must not wait for a free slot.
        while (Number((await environment.executeOneshot(countCommand(marker))).stdout.trim()) < 2) await delay(50);
        stop.abort();
        const results = await Promise.all([first, second]);
        expect(results.map((result) => result.exitCode).every((code) => code !== 0)).toBe(true);
        expect((await environment.executeOneshot(leftoversCommand(marker))).exitCode).toBe(0);
      } finally {
        await own.close();
      }
    });

    it("leaves no process of a timed-out command on the host", async () => {
      const marker = `sleep 301.${Date.now() % 1_000_000}`;
      const result = await environment.execute(`(${marker} & ${marker}; wait) & echo started; ${marker}`, { timeoutMs: 1_000 });
      expect(result).toMatchObject({ timedOut: true, stdout: "started\n" });
      // Checked from a second connection, as the user the commands ran as.
      const checker = await createEnvironment(connectionOptions());
      try {
        const leftovers = await checker.executeOneshot(leftoversCommand(marker));
        expect(leftovers.stdout).toBe("");
        expect(leftovers.exitCode).toBe(0);
      } finally {
        await checker.close();
      }
    });
  });

  describe("host key verification", () => {
    const refusal = async (options: Record<string, unknown>): Promise<CodecallError> => {
      const error = await createEnvironment({ ...connectionOptions(), ...options }).then(
        async (unexpected) => {
          await unexpected.close();
          throw new Error("connected although the host key is wrong");
        },
        (caught: unknown) => caught,
      );
      expect(CodecallError.isInstance(error)).toBe(true);
      return error as CodecallError;
    };
    const { host, port } = sshd.server ?? { host: "", port: 0 };

    it("refuses a host whose key differs from known_hosts, naming both fingerprints", async () => {
      const other = utils.generateKeyPairSync("ed25519").public.split(" ")[1]!;
      const otherFingerprint = `SHA256:${createHash("sha256").update(Buffer.from(other, "base64")).digest("base64").replace(/=+$/, "")}`;
      const file = path.join(scratch, "known_hosts_other");
      await writeFile(file, `[${host}]:${port} ssh-ed25519 ${other}\n`);
      const error = await refusal({ knownHostsPath: file });
      expect(error.message).toContain(`host key verification failed for ${host}:${port}`);
      expect(error.message).toContain(`presented ssh-ed25519 ${hostKey.fingerprint}`);
      expect(error.message).toContain(`lists ssh-ed25519 ${otherFingerprint}`);
      expect(error.details).toMatchObject({ host, port, presentedFingerprint: hostKey.fingerprint });
    });

    it("offers only the key types known_hosts lists, and says so when the host has none of them", async () => {
      const [type, blob] = utils.generateKeyPairSync("ecdsa", { bits: 256 }).public.split(" ");
      const file = path.join(scratch, "known_hosts_ecdsa");
      await writeFile(file, `[${host}]:${port} ${type} ${blob}\n`);
      const error = await refusal({ knownHostsPath: file });
      expect(error.message).toContain(`${host}:${port} has no host key of the types known_hosts lists for it (ecdsa-sha2-nistp256)`);
    });

    it("refuses a host missing from known_hosts, and says how to add it", async () => {
      const file = path.join(scratch, "known_hosts_unrelated");
      await writeFile(file, `unrelated.example ${hostKey.type} ${hostKey.blob}\n`);
      const error = await refusal({ knownHostsPath: file });
      expect(error.message).toContain(`[${host}]:${port} is not in ${file}`);
      expect(error.message).toContain(`ssh-keyscan -p ${port} ${host}`);
    });

    it("refuses a key marked @revoked", async () => {
      const file = path.join(scratch, "known_hosts_revoked");
      await writeFile(file, `@revoked * ${hostKey.type} ${hostKey.blob}\n[${host}]:${port} ${hostKey.type} ${hostKey.blob}\n`);
      expect((await refusal({ knownHostsPath: file })).message).toContain("@revoked");
    });

    it("refuses a wrong pinned fingerprint", async () => {
      const wrong = `SHA256:${"x".repeat(43)}`;
      const error = await refusal({ knownHostsPath: undefined, hostKeyFingerprint: wrong });
      expect(error.message).toContain("does not match the pinned fingerprint");
      expect(error.message).toContain(`expected ${wrong}`);
      expect(error.message).toContain(hostKey.fingerprint);
    });

    it("says which known_hosts file it could not read", async () => {
      const error = await refusal({ knownHostsPath: path.join(scratch, "missing") });
      expect(error.code).toBe("INVALID_OPTIONS");
      expect(error.message).toMatch(/cannot read the known_hosts file .*missing \(ENOENT\)/);
    });

    it("accepts the right pinned fingerprint, a hashed known_hosts entry, and the explicit opt-out", async () => {
      const hashedFile = path.join(scratch, "known_hosts_hashed");
      const salt = Buffer.from("0123456789abcdefghij");
      const { createHmac } = await import("node:crypto");
      const hashed = `|1|${salt.toString("base64")}|${createHmac("sha1", salt).update(`[${host}]:${port}`).digest("base64")}`;
      await writeFile(hashedFile, `${hashed} ${hostKey.type} ${hostKey.blob}\n`);
      for (const options of [
        { knownHostsPath: undefined, hostKeyFingerprint: hostKey.fingerprint },
        { knownHostsPath: hashedFile },
        { knownHostsPath: undefined, insecureSkipHostKeyCheck: true },
      ]) {
        const own = await createEnvironment({ ...connectionOptions(), ...options });
        expect((await own.execute("echo ok")).stdout).toBe("ok\n");
        await own.close();
      }
    });
  });

  describe("lost connections", () => {
    it("reconnects when the connection dropped between commands", async () => {
      const own = await createEnvironment(connectionOptions());
      try {
        const before = await connectionPort(own);
        // The sshd process that serves the connection, killed from outside between two commands
        // (the test runs on the SSH host).
        process.kill(Number((await own.execute(SERVING_SSHD_PID)).stdout.trim()), "SIGTERM");
        await delay(1_500);
        const after = await own.execute("echo back");
        expect(after).toMatchObject({ exitCode: 0, stdout: "back\n" });
        expect(await connectionPort(own)).not.toBe(before);
      } finally {
        await own.close();
      }
    });

    it("fails a command in flight when its connection drops, and does not run it again", async () => {
      const own = await createEnvironment(connectionOptions());
      const counter = `${await own.tempDir()}/runs`;
      try {
        const error = await own.execute(`echo run >> ${counter}; kill $(${SERVING_SSHD_PID}); sleep 5`).catch((caught: unknown) => caught);
        expect(CodecallError.isInstance(error, "ENVIRONMENT_FAILED")).toBe(true);
        expect((error as Error).message).toMatch(/lost the command: ssh: the connection to codecall@.* was lost/);
        expect((await own.execute(`cat ${counter}`)).stdout).toBe("run\n");
      } finally {
        await own.execute(`rm -rf "$(dirname ${counter})"`).catch(() => {});
        await own.close();
      }
    });
  });

  describe("options", () => {
    it("logs in with key contents, an encrypted key and its passphrase, and an agent", async () => {
      const keyText = await readFile(sshd.server!.keyPath, "utf8");
      const encrypted = path.join(scratch, "encrypted_key");
      await writeFile(encrypted, keyText, { mode: 0o600 });
      await run("ssh-keygen", ["-q", "-p", "-N", "a passphrase", "-f", encrypted]);
      const socket = path.join(scratch, "agent.sock");
      const agent = spawn("ssh-agent", ["-D", "-a", socket], { stdio: "ignore" });
      try {
        while (!existsSync(socket)) await delay(20);
        await run("ssh-add", ["-q", sshd.server!.keyPath], { env: { ...process.env, SSH_AUTH_SOCK: socket } });
        for (const login of [{ privateKey: keyText }, { privateKeyPath: encrypted, passphrase: "a passphrase" }, { agent: socket }]) {
          const own = await createEnvironment({ ...connectionOptions(), privateKeyPath: undefined, ...login });
          expect((await own.execute("id -un")).stdout).toBe(`${sshd.server!.user}\n`);
          await own.close();
        }
      } finally {
        agent.kill();
      }
    });

    it("adds env to every command and to defaultEnv, unless clearEnv", async () => {
      const own = new SshEnvironment({ ...connectionOptions(), env: { CODECALL_SSH_EXTRA: "extra value" } });
      try {
        expect((await own.execute('printf %s "$CODECALL_SSH_EXTRA"')).stdout).toBe("extra value");
        expect((await own.execute('printf %s "${CODECALL_SSH_EXTRA-unset}"', { clearEnv: true })).stdout).toBe("unset");
        const defaults = await own.defaultEnv();
        expect(defaults.CODECALL_SSH_EXTRA).toBe("extra value");
        expect(defaults.USER).toBe(sshd.server!.user);
      } finally {
        await own.close();
      }
    });

    it("runs commands in workdir and resolves relative paths of file functions against it", async () => {
      const dir = await environment.tempDir();
      for (const sftp of [true, false]) {
        const own = new SshEnvironment({ ...connectionOptions(), workdir: dir, sftp });
        try {
          expect((await own.execute("pwd")).stdout).toBe(`${dir}\n`);
          await own.writeFile(`sub/${sftp}.txt`, "relative");
          expect((await environment.execute(`cat ${dir}/sub/${sftp}.txt`)).stdout).toBe("relative");
          expect(new TextDecoder().decode(await own.readFile(`sub/${sftp}.txt`))).toBe("relative");
          await own.remove(`sub/${sftp}.txt`);
          expect((await environment.execute(`ls -A ${dir}/sub`)).stdout).toBe("");
        } finally {
          await own.close();
        }
      }
      await environment.executeOneshot(`rm -rf ${shellQuote(dir)}`);
    });

    it("creates temp dirs under tempRoot", async () => {
      const root = await environment.tempDir();
      const own = new SshEnvironment({ ...connectionOptions(), tempRoot: root });
      try {
        expect(path.posix.dirname(await own.tempDir())).toBe(root);
      } finally {
        await own.close();
        await environment.executeOneshot(`rm -rf ${shellQuote(root)}`);
      }
    });
  });
});
