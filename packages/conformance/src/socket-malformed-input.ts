/**
 * Garbage for transports whose guest end is a Unix socket at `CODECALL_RPC_SOCKET` (uds, stream,
 * or a third-party one speaking the same NDJSON): raw bytes written past the client, each answered
 * with an error line while the connection goes on.
 */
import type { MalformedInputCase } from "./describe-transport.js";

export const SOCKET_MALFORMED_INPUT: MalformedInputCase = {
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
  // Parse error, invalid request, then a call and a hello with a wrong token: both unauthorised.
  expectedOutput: "-32700\n-32600\n-32001\n-32001\n",
};
