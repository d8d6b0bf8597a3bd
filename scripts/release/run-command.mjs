// One way to run a command for the pack test: collect its output, and on failure throw an error
// that shows the command, where it ran, its exit status and the tail of what it printed.
import { spawn } from "node:child_process";

/** How much of a failed command's output goes into the error. */
const OUTPUT_TAIL_CHARS = 4_000;

/**
 * The environment a stranger's shell would have: the `npm_*` variables that `npm test` and
 * `pnpm run` hand to their scripts (this workspace's .npmrc settings among them) are left out, so
 * the npm inside the test reads only its own configuration.
 */
export function strangerEnv() {
  return Object.fromEntries(Object.entries(process.env).filter(([name]) => !/^npm_/i.test(name)));
}

/**
 * Runs `command args` in `cwd` and resolves with its stdout and stderr once it exits with 0.
 * @param {string} command
 * @param {string[]} args
 * @param {{ cwd: string, env?: NodeJS.ProcessEnv, timeoutMs?: number }} options
 * @returns {Promise<{ stdout: string, stderr: string, seconds: number }>}
 */
export function runCommand(command, args, { cwd, env = strangerEnv(), timeoutMs = 300_000 }) {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd, env, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (chunk) => (stdout += chunk));
    child.stderr.setEncoding("utf8").on("data", (chunk) => (stderr += chunk));
    const timer = setTimeout(() => child.kill("SIGKILL"), timeoutMs);
    child.on("error", (error) => {
      clearTimeout(timer);
      reject(new Error(`could not start \`${command}\` in ${cwd}: ${error.message}`));
    });
    child.on("close", (code, signal) => {
      clearTimeout(timer);
      const seconds = (performance.now() - started) / 1000;
      if (code === 0) return resolve({ stdout, stderr, seconds });
      const how = signal ? `was killed by ${signal}${signal === "SIGKILL" ? ` (time limit ${timeoutMs / 1000}s)` : ""}` : `exited with ${code}`;
      const output = `${stdout}\n${stderr}`.trim().slice(-OUTPUT_TAIL_CHARS);
      reject(new Error(`\`${[command, ...args].join(" ")}\` in ${cwd} ${how}:\n${output}`));
    });
  });
}
