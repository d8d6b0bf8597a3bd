# A guest that pipelines many calls on one raw connection to the socket at CODECALL_RPC_SOCKET and
# reads none of the answers for a while, then reads them all: the host must hold back (memory
# bounded) and still answer every call once the guest reads. Prints a JSON summary.
import json
import os
import re
import socket
import threading
import time


def request(request_id, method, params):
    return json.dumps({"jsonrpc": "2.0", "id": request_id, "method": method, "params": params}).encode() + b"\n"


ANSWER_HEAD = re.compile(rb'^\{"jsonrpc":"2\.0","id":(\d+),"(result|error)":')


def check(line, size):
    """The answer's id and what is wrong with it, if anything; parses only small answers in full
    (json.loads of thousands of 1 MiB answers would make the guest the slowest part)."""
    head = ANSWER_HEAD.match(line)
    if head is None or head.group(2) == b"error" or len(line) < 4096:
        answer = json.loads(line)
        problem = answer.get("error", {}).get("message") if answer["id"] != 0 else None
        return answer["id"], problem
    # The blob tool returns "é" and then "x": size + 1 bytes of UTF-8 between the quotes.
    body = line[head.end() :]
    intact = len(body) == size + 4 and body.startswith('"é'.encode()) and body.endswith(b'x"}\n')
    return int(head.group(1)), None if intact else "a result of the wrong size"


def pipeline(calls, size, quiet_seconds):
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.connect(os.environ["CODECALL_RPC_SOCKET"])
    frames = [request(0, "hello", {"token": os.environ["CODECALL_RPC_TOKEN"], "protocol": 1})]
    frames += [request(i, "tools/call", {"name": "blob", "arguments": {"size": size}}) for i in range(1, calls + 1)]
    # A host that applies backpressure stops reading: send from a thread, so this one can read.
    sender = threading.Thread(target=sock.sendall, args=(b"".join(frames),), daemon=True)
    sender.start()
    time.sleep(quiet_seconds)
    reader = sock.makefile("rb", buffering=1 << 20)
    seen = set()
    bad = []
    for _ in range(calls + 1):
        answer_id, problem = check(reader.readline(), size)
        seen.add(answer_id)
        if problem:
            bad.append(problem)
    sender.join()
    sock.close()
    print(json.dumps({"answered": len(seen), "bad": len(bad), "firstBad": bad[:1]}))
