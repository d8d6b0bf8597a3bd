// Credentials from the SDK's config file: the active profile of the TOML file MODAL_CONFIG_PATH
// names (~/.modal.toml by default), or the profile MODAL_PROFILE picks. The SDK reads the file when
// it is imported, so this file writes it first and imports the backend afterwards.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, afterEach, expect, it } from "vitest";
import { describeIntegration } from "@codecall/conformance";
import { FAKE_TOKEN_ID, FAKE_TOKEN_SECRET, FakeModal } from "../fake-modal.js";

const fake = await FakeModal.start();
const dir = mkdtempSync(path.join(tmpdir(), "codecall-modal-config-"));
const configPath = path.join(dir, "modal.toml");
writeFileSync(
  configPath,
  `[default]
token_id = "ak-default-profile"
token_secret = "as-default-profile-SECRET-77aa"
server_url = "${fake.url}"
active = true

[codecall-ci]
token_id = "${FAKE_TOKEN_ID}"
token_secret = "${FAKE_TOKEN_SECRET}"
server_url = "${fake.url}"
`,
);
process.env.MODAL_CONFIG_PATH = configPath;
for (const name of ["MODAL_SERVER_URL", "MODAL_TOKEN_ID", "MODAL_TOKEN_SECRET", "MODAL_PROFILE"]) delete process.env[name];
const { createEnvironment } = await import("../../src/index.js");

afterAll(async () => {
  await fake.stop();
  rmSync(dir, { recursive: true, force: true });
});

describeIntegration("modal credentials from the config file", undefined, () => {
  afterEach(() => {
    delete process.env.MODAL_PROFILE;
  });

  it("uses the active profile (its server and token): here refused, without its secret in the error", async () => {
    const error = await createEnvironment().catch((caught: unknown) => caught);
    expect((error as Error).message).toMatch(/^modal: Modal refused the credentials/);
    expect((error as Error).message).not.toContain("as-default-profile-SECRET");
  });

  it("uses the profile MODAL_PROFILE names", async () => {
    process.env.MODAL_PROFILE = "codecall-ci";
    await using environment = await createEnvironment();
    expect((await environment.execute("echo from-profile")).stdout).toBe("from-profile\n");
  });
});
