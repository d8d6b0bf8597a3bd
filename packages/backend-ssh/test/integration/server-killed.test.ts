// The SSH server dies mid-run (killed like a crash): what was running fails promptly with a clear
// error, executeCode returns an error result instead of hanging, and later commands say the host
// cannot be reached. Uses a private sshd so the shared one stays up.
import { rm } from "node:fs/promises";
import { afterAll, beforeAll, expect, it } from "vitest";
import { CodecallError, executeCode } from "@codecall/core";
import { describeIntegration } from "@codecall/conformance";
import { builtinTools } from "@codecall/tools";
import { createTransport as createFileTransport } from "@codecall/transport-file";
import { createTransport as createStreamTransport } from "@codecall/transport-stream";
import { createEnvironment, type SshEnvironment } from "../../src/index.js";
import { connectionOptions, crashServer, killQuietly, privateServerUnavailable, startPrivateServer } from "./sshd.js";

const TRANSPORTS = [
  ["file", createFileTransport],
  ["stream", createStreamTransport],
] as const;

for (const [transportName, createTransport] of TRANSPORTS)
  describeIntegration(`ssh: the server dies mid-run (${transportName} transport)`, privateServerUnavailable(), () => {
    let server: Awaited<ReturnType<typeof startPrivateServer>>;
    let environment: SshEnvironment;
    const orphans: number[] = [];
    let runDir: string | undefined;

    beforeAll(async () => {
      server = await startPrivateServer();
      environment = await createEnvironment(connectionOptions(server.server));
    }, 120_000);

    afterAll(async () => {
      for (const pid of orphans) killQuietly(pid, "SIGKILL");
      // The host is this machine: clean up what the crashed run could not.
      if (runDir?.startsWith("/")) await rm(runDir, { recursive: true, force: true });
      await environment?.close();
      await server?.dispose();
    });

    it("ends a running executeCode with an error result naming the lost connection, and refuses later commands clearly", async () => {
      let crashed: Promise<void> | undefined;
      let printed = "";
      const result = await executeCode({
        // Prints its run dir, which nobody can remove over SSH once the server is gone.
        code: 'import os, time\nfrom codecall import terminal\nterminal("true")\nprint(os.path.dirname(os.path.abspath(__file__)), flush=True)\ntime.sleep(120)',
        environment,
        transport: createTransport(),
        tools: builtinTools,
        limits: { timeoutMs: 300_000 },
        onStdout: (chunk) => {
          // The line may arrive in more than one chunk.
          printed += new TextDecoder().decode(chunk);
          runDir = printed.trim();
          crashed ??= crashServer(server.pidFile).then((left) => void orphans.push(...left));
        },
      });
      await crashed;
      expect(result.status).toBe("error");
      expect(result.error).toMatch(
        /^ssh environment failed: The ssh environment lost the command: ssh: the connection to codecall@127\.0\.0\.1:\d+ was lost/,
      );
      // What the script printed before the server went is kept, with the reason after it.
      expect(result.output).toBe(`${runDir}\n\n${result.error}`);

      const later = await environment.execute("true").catch((error: unknown) => error);
      expect(CodecallError.isInstance(later, "ENVIRONMENT_FAILED")).toBe(true);
      expect((later as Error).message).toMatch(/cannot connect to 127\.0\.0\.1:\d+: connect ECONNREFUSED/);
    }, 60_000);
  });
