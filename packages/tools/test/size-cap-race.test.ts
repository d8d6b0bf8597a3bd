// read_file and patch check a file's size and then read it: a script that swaps a symlink between
// the two must not make the host read the big file (issue 10, item 2). The cap is carried by the
// read itself; the suite asserts on the bytes that crossed, on the local backend.
import { createEnvironment } from "@codecall/backend-local";
import { describeReadRace } from "@codecall/conformance";
import { createPatchTool, createReadFileTool } from "../src/index.js";
import { contextFor } from "./support.js";

const CAP = 4096;
const readFile = createReadFileTool({ maxFileBytes: CAP });
const patch = createPatchTool({ maxFileBytes: CAP });

describeReadRace({
  name: "read_file and patch on local",
  create: () => createEnvironment(),
  maxBytes: CAP,
  readers: {
    read_file: (environment, path) => readFile.execute({ path }, contextFor(environment)),
    patch: (environment, path) => patch.execute({ path, old_string: "not in either file", new_string: "x" }, contextFor(environment)),
  },
});
