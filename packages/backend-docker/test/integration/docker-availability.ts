/**
 * Whether a Docker engine and the test image are here: scripts/ci/docker.sh provides both
 * (`source /tmp/codecall-ci/docker/env`). Without them the suites skip with the reason, or fail
 * under CODECALL_REQUIRE_INTEGRATION=1.
 */
import Docker from "dockerode";

/** The image the suites run in (it must have python3, coreutils, util-linux and procps). */
export const TEST_IMAGE = process.env.CODECALL_DOCKER_IMAGE ?? "codecall-test-python:latest";

async function probe(): Promise<string | undefined> {
  const docker = new Docker();
  const where = process.env.DOCKER_HOST ?? "/var/run/docker.sock";
  try {
    await (docker as unknown as { ping(options: { abortSignal: AbortSignal }): Promise<unknown> }).ping({ abortSignal: AbortSignal.timeout(3_000) });
  } catch (error) {
    return `no Docker engine answers at ${where} (${(error as Error).message}); run scripts/ci/docker.sh and source /tmp/codecall-ci/docker/env`;
  }
  try {
    await docker.getImage(TEST_IMAGE).inspect();
  } catch {
    return `the Docker engine at ${where} has no image ${TEST_IMAGE}; scripts/ci/docker.sh builds it`;
  }
  return undefined;
}

/** `undefined` when the engine and the image are available, else why not. */
export const dockerUnavailable: string | undefined = await probe();
