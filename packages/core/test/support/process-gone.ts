import { readFile } from "node:fs/promises";

/** True once the pid has ended (zombies count as ended); false if it is still running after ~5 s. */
export async function processGone(pid: number): Promise<boolean> {
  for (let attempt = 0; attempt < 50; attempt += 1) {
    const status = await readFile(`/proc/${pid}/status`, "utf8").catch(() => "");
    if (status === "" || /^State:\s*Z/m.test(status)) return true;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return false;
}
