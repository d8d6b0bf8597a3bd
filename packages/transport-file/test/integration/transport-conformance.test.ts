import { createEnvironment } from "@codecall/backend-local";
import { describeTransport } from "@codecall/conformance";
import { createTransport } from "../../src/index.js";

describeTransport({
  name: "file on local",
  // The fastest pacing: exactly-once must hold when polls follow each other back to back.
  transport: () => createTransport({ minPollMs: 0, maxPollMs: 5 }),
  createEnvironment: () => createEnvironment(),
  malformedInput: {
    // Request files written by hand: empty, binary garbage (its first line is no token), a token
    // and broken JSON, a wrong token, an unknown method, bad arguments, and names the host must
    // delete unread.
    python: `
import json, os, time
rpc = os.environ["CODECALL_RPC_DIR"]
token = os.environ["CODECALL_RPC_TOKEN"]
def put(name, data):
    staged = os.path.join(rpc, "guest-tmp", "staged")
    with open(staged, "wb") as handle:
        handle.write(data)
    os.rename(staged, os.path.join(rpc, "requests", name))
def wait_for(check):
    for _ in range(3000):  # only a broken host gets near this bound
        if check():
            return True
        time.sleep(0.01)
    return False
def code(request_id):
    path = os.path.join(rpc, "responses", request_id + ".json")
    if not wait_for(lambda: os.path.exists(path)):
        return "no answer"
    with open(path) as handle:
        return json.load(handle)["error"]["code"]
def removed(name):
    path = os.path.join(rpc, "requests", name)
    return "removed" if wait_for(lambda: not os.path.lexists(path)) else "still there"
def request(request_id, method, params):
    return json.dumps({"jsonrpc": "2.0", "id": request_id, "method": method, "params": params})
put("m0.json", b"")
put("m1.json", b"\\x00\\xffgarbage\\n{{{")
put("m2.json", (token + "\\n{not json").encode())
put("m3.json", ("wrong-token\\n" + request("m3", "tools/call", {"name": "echo", "arguments": {"text": "x"}})).encode())
put("m4.json", (token + "\\n" + request("m4", "no/such", {})).encode())
put("m5.json", (token + "\\n" + request("m5", "tools/call", {"name": "echo", "arguments": {"text": 5}})).encode())
put("bad name.json", (token + "\\n" + request("bad", "tools/call", {"name": "echo", "arguments": {"text": "x"}})).encode())
put("m6.txt", b"x")
print(code("m0"), code("m1"), code("m2"), code("m3"), code("m4"), code("m5"))
print(removed("bad name.json"), removed("m6.txt"))
`,
    expectedOutput: "-32600 -32001 -32700 -32001 -32601 -32602\nremoved removed\n",
  },
});
