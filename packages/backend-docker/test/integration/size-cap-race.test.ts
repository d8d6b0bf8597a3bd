// read_file and patch in a container, with a script swapping a symlink between their size check
// and their read (issue 10, item 2): no more than the cap may cross from the container.
import { describeReadRace } from "@codecall/conformance";
import { createPatchTool, createReadFileTool } from "@codecall/tools";
import { createEnvironment } from "../../src/index.js";
import { dockerUnavailable, TEST_IMAGE } from "./docker-availability.js";

const CAP = 4096;
const readFile = createReadFileTool({ maxFileBytes: CAP });
const patch = createPatchTool({ maxFileBytes: CAP });
const context = { signal: new AbortController().signal, runId: "race", callId: "1" };

describeReadRace({
  name: "read_file and patch on docker",
  create: () => createEnvironment({ image: TEST_IMAGE }),
  maxBytes: CAP,
  readers: {
    read_file: (environment, path) => readFile.execute({ path }, { ...context, environment }),
    patch: (environment, path) => patch.execute({ path, old_string: "not in either file", new_string: "x" }, { ...context, environment }),
  },
  rounds: 8,
  unavailableReason: dockerUnavailable,
});
