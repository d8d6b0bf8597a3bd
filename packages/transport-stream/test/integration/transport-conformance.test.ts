// The shared transport suite on the local backend (its spawn keeps stdio open, so the relay runs
// there as it would in a container); docker and ssh run the same suite in their packages.
import { createEnvironment } from "@codecall/backend-local";
import { describeTransport } from "@codecall/conformance";
import { createTransport } from "../../src/index.js";

describeTransport({
  name: "stream on local",
  transport: () => createTransport(),
  createEnvironment: () => createEnvironment(),
  malformedInput: {
    // Raw bytes on the run's socket, bypassing the client: each gets an error line back.
    python: `
import json, os, socket
raw = socket.socket(socket.AF_UNIX)
raw.connect(os.environ["CODECALL_RPC_SOCKET"])
reader = raw.makefile("rb")
def send(data):
    raw.sendall(data)
    return json.loads(reader.readline())["error"]["code"]
print(send(b"\\x00\\xffgarbage{{{\\n"))
print(send(b"[1, 2]\\n"))
print(send(b'{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"x"}}}\\n'))
print(send(b'{"jsonrpc":"2.0","id":2,"method":"hello","params":{"token":"wrong","protocol":1}}\\n'))
raw.close()
`,
    expectedOutput: "-32700\n-32600\n-32001\n-32001\n",
  },
});
