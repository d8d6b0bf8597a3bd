// Apptainer backend through the fake CLI of packages/backend-singularity/test/fake-cli (a Node
// stand-in for a binary Debian cannot install: every `apptainer exec` is a new Node process, as a
// real one is a new Go process that enters the container): the environment agent against plain
// execs (`agent: false`), in the same run.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { agentGoalMeasures, compareAgentAndPlain } from "./lib.mjs";

const skip = (reason) => {
  console.error(`SKIP: ${reason}`);
  process.exit(1);
};

const fakeCli = fileURLToPath(new URL("../packages/backend-singularity/test/fake-cli", import.meta.url));
const state = mkdtempSync(path.join(tmpdir(), "codecall-bench-apptainer-"));
process.env.PATH = `${fakeCli}:${process.env.PATH}`;
process.env.FAKE_APPTAINER_STATE = state;

const [singularity, stream] = await Promise.all(
  ["@codecall/backend-singularity", "@codecall/transport-stream"].map((name) =>
    import(name).catch(() => skip(`${name} is not installed for bench/`)),
  ),
);

try {
  const [plain, agent] = await Promise.all([
    singularity.createEnvironment({ image: fakeCli, agent: false }),
    singularity.createEnvironment({ image: fakeCli }),
  ]);
  await compareAgentAndPlain({ backend: "apptainer (fake CLI)", plain, agent, measures: agentGoalMeasures(stream.createTransport()) });
  await Promise.all([plain.close(), agent.close()]);
} finally {
  rmSync(state, { recursive: true, force: true });
}
