// The relay's own tests, in Python (python/test_*.py), run against src/guest/relay.py.
import { fileURLToPath } from "node:url";
import { describePythonTests } from "@codecall/conformance";

describePythonTests({
  title: "the stream relay, run by python3",
  testDir: fileURLToPath(new URL("python/", import.meta.url)),
  pythonPath: [fileURLToPath(new URL("../src/guest/", import.meta.url))],
});
