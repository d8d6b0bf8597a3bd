# Guests that pipeline many calls on raw connections to the socket at CODECALL_RPC_SOCKET and do not
# read the answers: the host must hold back (memory bounded), answer every call once the guest
# reads, and keep serving the other connections meanwhile. Each prints a JSON summary.
import json
import os
import re
import socket
import struct
import threading
import time


def request(request_id, method, params):
    return json.dumps({"jsonrpc": "2.0", "id": request_id, "method": method, "params": params}).encode() + b"\n"


def blob_calls(calls, size):
    return [request(i, "tools/call", {"name": "blob", "arguments": {"size": size}}) for i in range(1, calls + 1)]


ANSWER_HEAD = re.compile(rb'^\{"jsonrpc":"2\.0","id":(\d+),"(result|error)":')


def check(line, size):
    """The answer's id and what is wrong with it, if anything; parses only small answers in full
    (json.loads of thousands of 1 MiB answers would make the guest the slowest part)."""
    head = ANSWER_HEAD.match(line)
    if head is None or head.group(2) == b"error" or len(line) < 4096:
        answer = json.loads(line)
        problem = answer.get("error", {}).get("message") if answer["id"] != 0 else None
        return answer["id"], problem
    # The blob tool returns "é" and then "x": size + 1 bytes of UTF-8 between the quotes, then "}" and a newline.
    body = line[head.end() :]
    intact = len(body) == size + 5 and body.startswith('"é'.encode()) and body.endswith(b'x"}\n')
    return int(head.group(1)), None if intact else "a result of the wrong size"


def pipeline(calls, size, quiet_seconds):
    sock = connect_and_send(blob_calls(calls, size))
    time.sleep(quiet_seconds)
    reader = sock.makefile("rb", buffering=1 << 20)
    seen = set()
    bad = []
    for _ in range(calls + 1):
        answer_id, problem = check(reader.readline(), size)
        seen.add(answer_id)
        if problem:
            bad.append(problem)
    sock.close()
    print(json.dumps({"answered": len(seen), "bad": len(bad), "firstBad": bad[:1]}))


def connect_and_send(frames):
    """A raw connection that sends `frames` after hello, from a thread (the host may stop reading)."""
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.connect(os.environ["CODECALL_RPC_SOCKET"])
    hello = request(0, "hello", {"token": os.environ["CODECALL_RPC_TOKEN"], "protocol": 1})
    threading.Thread(target=send_quietly, args=(sock, hello + b"".join(frames)), daemon=True).start()
    return sock


def send_quietly(sock, data):
    try:
        sock.sendall(data)
    except OSError:
        pass  # this process closed or reset the connection on purpose


def stalled_neighbours(calls, size):
    """Calls from this process's client while other connections misbehave: one leaves `calls`
    answers of `size` unread, one sends garbage and resets with answers on their way."""
    # The tools module is generated for each run (its probe tools), so only a run can resolve it.
    from codecall import echo  # pyright: ignore[reportMissingImports]

    blob = blob_calls(calls, size)
    stalled = connect_and_send(blob)
    rude = connect_and_send(blob[:8] + [b"\x00\xffgarbage{{{\n"])
    rude.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    rude.close()  # a reset, with its answers still coming
    answers = [echo(f"n{i}") for i in range(20)]
    print(json.dumps({"answers": answers == [f"n{i}" for i in range(20)]}))
    stalled.close()
