// read_file and patch over SSH, with a script swapping a symlink between their size check and
// their read (issue 10, item 2): no more than the cap may cross, over SFTP and over exec.
import { describeReadRace } from "@codecall/conformance";
import { createPatchTool, createReadFileTool } from "@codecall/tools";
import { createEnvironment } from "../../src/index.js";
import { connectionOptions, sshd } from "./sshd.js";

const CAP = 4096;
const readFile = createReadFileTool({ maxFileBytes: CAP });
const patch = createPatchTool({ maxFileBytes: CAP });
const context = { signal: new AbortController().signal, runId: "race", callId: "1" };

for (const sftp of [true, false]) {
  describeReadRace({
    name: `read_file and patch on ssh, files over ${sftp ? "SFTP" : "exec"}`,
    create: () => createEnvironment({ ...connectionOptions(), sftp }),
    maxBytes: CAP,
    readers: {
      read_file: (environment, path) => readFile.execute({ path }, { ...context, environment }),
      patch: (environment, path) => patch.execute({ path, old_string: "not in either file", new_string: "x" }, { ...context, environment }),
    },
    rounds: 10,
    unavailableReason: sshd.unavailableReason,
  });
}
