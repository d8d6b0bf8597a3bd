import { mkdir, readFile } from "node:fs/promises";
import { createEnvironment } from "@codecall/backend-local";
import { scrubEnv } from "@codecall/core";
import { ScopedEnvironment, shellQuote } from "@codecall/core/plugin-kit";
import { describe, expect, it } from "vitest";
import { createTerminalTool, terminalTool, TIMEOUT_EXIT_CODE } from "../src/index.js";
import { contextFor, processAlive, processGone, useWorkspace } from "./support.js";

describe("terminal", () => {
  const ws = useWorkspace();

  it("runs a command and returns output, exit code and flags", async () => {
    const result = await terminalTool.execute({ command: "echo hello; printf 'x y'" }, ws.context);
    expect(result).toEqual({ output: "hello\nx y", exit_code: 0, timed_out: false, truncated: false });
  });

  it("returns a non-zero exit code instead of throwing", async () => {
    const result = await terminalTool.execute({ command: "echo failing; exit 7" }, ws.context);
    expect(result.exit_code).toBe(7);
    expect(result.output).toBe("failing\n");
    expect(result.timed_out).toBe(false);
  });

  it("merges stderr into the output in the order it was written", async () => {
    const result = await terminalTool.execute({ command: "echo one; echo two >&2; echo three; ls /definitely/not/here" }, ws.context);
    expect(result.output).toMatch(/^one\ntwo\nthree\n.*definitely\/not\/here/s);
    expect(result.exit_code).not.toBe(0);
  });

  it("runs in the environment's working directory by default and in workdir when given", async () => {
    await mkdir(ws.at("sub dir"));
    const here = await terminalTool.execute({ command: "pwd -P" }, ws.context);
    const there = await terminalTool.execute({ command: "pwd -P", workdir: "sub dir" }, ws.context);
    const absolute = await terminalTool.execute({ command: "pwd -P", workdir: ws.at("sub dir") }, ws.context);
    const real = (await terminalTool.execute({ command: `cd ${shellQuote(ws.dir)} && pwd -P` }, ws.context)).output;
    expect(here.output).toBe(real);
    expect(there.output.trim()).toBe(`${real.trim()}/sub dir`);
    expect(absolute.output).toBe(there.output);
  });

  it("rejects a workdir that does not exist", async () => {
    await expect(terminalTool.execute({ command: "pwd", workdir: "no/such/dir" }, ws.context)).rejects.toThrow(/no\/such\/dir/);
  });

  it("treats a null workdir as absent", async () => {
    const result = await terminalTool.execute({ command: "pwd -P", workdir: null }, ws.context);
    expect(result.exit_code).toBe(0);
  });

  it("kills a command at its timeout and returns what it printed", async () => {
    const result = await terminalTool.execute({ command: "echo started; sleep 30", timeout: 1 }, ws.context);
    expect(result.timed_out).toBe(true);
    expect(result.exit_code).toBe(TIMEOUT_EXIT_CODE);
    expect(result.output).toMatch(/^started\n\[Command timed out after 1 s and was killed\]$/);
  });

  it("kills background children of a timed-out command too", async () => {
    const result = await terminalTool.execute({ command: `sleep 30 & echo $! > ${ws.at("pid")}; wait`, timeout: 1 }, ws.context);
    expect(result.timed_out).toBe(true);
    const pid = Number(await ws.text("pid"));
    expect(await processGone(pid)).toBe(true);
  });

  it("caps huge output, keeping its head and tail", async () => {
    const result = await terminalTool.execute({ command: "seq 1 300000" }, ws.context);
    expect(result.truncated).toBe(true);
    expect(result.exit_code).toBe(0);
    expect(new TextEncoder().encode(result.output).length).toBeLessThan(50_000 + 200);
    expect(result.output.startsWith("1\n2\n3\n")).toBe(true);
    expect(result.output.endsWith("299999\n300000\n")).toBe(true);
    expect(result.output).toMatch(/OUTPUT TRUNCATED - [\d,]+ bytes omitted/);
  });

  it("uses the configured output cap", async () => {
    const small = createTerminalTool({ terminalMaxOutputBytes: 1000 });
    const result = await small.execute({ command: "seq 1 5000" }, ws.context);
    expect(result.truncated).toBe(true);
    expect(result.output.length).toBeLessThan(1000 + 200);
    expect(small.description).toContain("1,000 bytes");
  });

  it("strips ANSI escape sequences", async () => {
    const result = await terminalTool.execute({ command: String.raw`printf '\033[1;31mred\033[0m plain \033]0;title\007done\n'` }, ws.context);
    expect(result.output).toBe("red plain done\n");
  });

  it("gives the command an empty stdin", async () => {
    const result = await terminalTool.execute({ command: "cat; echo after" }, ws.context);
    expect(result.output).toBe("after\n");
  });

  it("kills the command when the call is aborted, and throws", async () => {
    const pending = terminalTool.execute({ command: `sleep 30 & echo $! > ${ws.at("pid")}; wait` }, ws.context);
    let pid = 0;
    for (let i = 0; i < 100 && !pid; i += 1) {
      pid = Number(await readFile(ws.at("pid"), "utf8").catch(() => "0")) || 0;
      if (!pid) await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(await processAlive(pid)).toBe(true);
    ws.controller.abort("the run was interrupted");
    await expect(pending).rejects.toThrow(/Interrupted: the run was interrupted/);
    expect(await processGone(pid)).toBe(true);
  });

  it("refuses to start when the call is already aborted", async () => {
    ws.controller.abort("too late");
    await expect(terminalTool.execute({ command: `touch ${ws.at("ran")}` }, ws.context)).rejects.toThrow(/Interrupted/);
    await expect(readFile(ws.at("ran"))).rejects.toThrow(/ENOENT/);
  });

  it("rejects an empty command and an out-of-range timeout", async () => {
    await expect(terminalTool.execute({ command: "   " }, ws.context)).rejects.toThrow(/command/);
    await expect(terminalTool.execute({ command: "true", timeout: 0 }, ws.context)).rejects.toThrow(/timeout/);
    await expect(terminalTool.execute({ command: "true", timeout: 1.5 }, ws.context)).rejects.toThrow(/timeout/);
  });

  it("sees only the run's scrubbed env through a ScopedEnvironment (no host secrets)", async () => {
    const secret = "sk-secret-terminal-test-0123456789";
    const inner = createEnvironment({ cwd: ws.dir, env: { ...process.env, OPENAI_API_KEY: secret, CODECALL_HARMLESS: "x" } });
    try {
      // Control: the unscoped environment does hand the key to commands, so the check below can fail.
      const leaky = await terminalTool.execute({ command: "env" }, contextFor(inner));
      expect(leaky.output).toContain(secret);

      const scoped = new ScopedEnvironment(inner, { env: scrubEnv(await inner.defaultEnv()).env, cwd: ws.dir });
      const result = await terminalTool.execute({ command: "env" }, contextFor(scoped));
      expect(result.exit_code).toBe(0);
      expect(result.output).toMatch(/^PATH=/m);
      expect(result.output).not.toContain(secret);
      expect(result.output).not.toContain("OPENAI_API_KEY");
      expect(result.output).not.toContain("CODECALL_HARMLESS");
      // The run's cwd applies to commands too.
      const pwd = await terminalTool.execute({ command: "pwd" }, contextFor(scoped));
      expect(pwd.output.trim()).toBe(ws.dir);
    } finally {
      await inner.close();
    }
  });
});
