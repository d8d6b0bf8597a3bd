// A script swaps a FIFO in for a file after a tool looked at the path and before the toolbox opens
// it (the fake's file-info hook makes that moment certain): the daemon's open of the FIFO waits
// for a writer for ever, and says nothing meanwhile. The download's stall check notices the FIFO
// and fails the read with INVALID_PATH instead of waiting with it; the environment works on.
import { execFileSync } from "node:child_process";
import { rm } from "node:fs/promises";
import { afterAll, describe, expect, it } from "vitest";
import { CodecallError } from "@codecall/core";
import { createEnvironment } from "../../src/index.js";
import { FakeDaytona } from "../fake-daytona/fake-daytona.js";

const fake = await FakeDaytona.start();
afterAll(() => fake.close());

describe("a FIFO that takes a file's place between the check and the transfer (agent off)", () => {
  it("fails the read with INVALID_PATH once the download stalls, and the environment works afterwards", async () => {
    await using environment = await createEnvironment({ ...fake.connection, agent: false, livenessIntervalMs: 200 });
    const dir = (await environment.execute("mktemp -d")).stdout.trim();
    const file = `${dir}/data.txt`;
    await environment.writeFile(file, "a regular file, when it was looked at");
    fake.onFileInfo = async (path) => {
      if (path !== file) return;
      fake.onFileInfo = undefined;
      await rm(path);
      execFileSync("mkfifo", [path]);
    };
    const downloads = fake.requestsTo("/files/bulk-download").length;

    const read = await environment.readFile(file).catch((caught: unknown) => caught);
    expect((read as Error).message).toBe(`Not a regular file (a fifo): ${file}`);
    expect(CodecallError.isInstance(read, "INVALID_PATH")).toBe(true);
    // The download was made, and held by the FIFO, rather than refused before it.
    expect(fake.requestsTo("/files/bulk-download").length).toBe(downloads + 1);

    await environment.writeFile(`${dir}/after.txt`, "still fine");
    expect(new TextDecoder().decode(await environment.readFile(`${dir}/after.txt`))).toBe("still fine");
  });
});
