# codecall environment agent: the frames on its stdin and stdout.
#
# After the magic line (which tells the host where the agent's output starts: a login shell may
# print something first), everything both ways is a frame: a 9-byte header (kind: u8, channel:
# u32, length: u32, big-endian) and `length` bytes of payload. Control payloads are JSON; data is
# raw bytes, so any byte sequence goes through unchanged.
#
#   HELLO    agent -> host  once, first: {"protocol", "pid", "python", "subreaper", "env", ...}
#   REQUEST  host -> agent  channel = request id, JSON {"op": ..., ...}
#   REPLY    agent -> host  channel = request id, JSON {"ok": ...} or {"error": {"code", "message"}}
#   EVENT    agent -> host  channel = a spawn or listen request id, JSON ({"exit": ...}, {"connection": ...})
#   DATA     both ways      channel = stream id, the stream's next bytes (1 to CHUNK of them)
#   END      both ways      channel = stream id: the sender's stream is complete
#   CREDIT   both ways      channel = stream id, u32: the receiver consumed that many more bytes
#   CANCEL   both ways      channel = stream id: the receiver wants no more (its consumer is gone)
#
# Streams go one way each. The host numbers the streams it opens (even ids), the agent those of the
# connections it accepts (odd ids). A sender keeps at most WINDOW bytes of a stream unconsumed: it
# sends more only as CREDIT comes back, so a consumer that stops reading holds back only its own
# stream, and what either side buffers for a stream is bounded.
import json
import struct

MAGIC = b"codecall-agent/1\n"
PROTOCOL = 1
HEADER = struct.Struct(">BII")
CREDIT_PAYLOAD = struct.Struct(">I")

HELLO = 1
REQUEST = 2
REPLY = 3
EVENT = 4
DATA = 5
END = 6
CREDIT = 7
CANCEL = 8

# The most one DATA frame carries.
CHUNK = 64 * 1024
# Bytes of one stream a sender may have sent that the receiver has not consumed yet.
WINDOW = 256 * 1024
# The largest request the agent accepts (a command with a big environment).
MAX_REQUEST = 16 * 1024 * 1024

# What the host may send, and the largest payload of each kind.
FROM_HOST = {REQUEST: MAX_REQUEST, DATA: CHUNK, END: 0, CREDIT: CREDIT_PAYLOAD.size, CANCEL: 0}


class ProtocolError(Exception):
    """The peer broke the framing; nothing after it can be trusted."""


def frame(kind, channel, payload=b""):
    return HEADER.pack(kind, channel, len(payload)) + payload


def json_frame(kind, channel, value):
    return frame(kind, channel, json.dumps(value, separators=(",", ":")).encode("utf-8"))


def credit_frame(channel, count):
    return frame(CREDIT, channel, CREDIT_PAYLOAD.pack(count))


def read_credit(payload):
    return CREDIT_PAYLOAD.unpack(payload)[0]


class FrameReader:
    """Splits a byte stream into (kind, channel, payload) frames; chunks may split anywhere."""

    def __init__(self, limits):
        self.limits = limits
        self.buffer = bytearray()

    def feed(self, data):
        buffer = self.buffer
        buffer += data
        frames = []
        start = 0
        size = len(buffer)
        while size - start >= HEADER.size:
            kind, channel, length = HEADER.unpack_from(buffer, start)
            limit = self.limits.get(kind)
            if limit is None:
                raise ProtocolError("a frame of unknown kind %d" % kind)
            if length > limit:
                raise ProtocolError("a %d-byte frame of kind %d (at most %d)" % (length, kind, limit))
            end = start + HEADER.size + length
            if end > size:
                break
            frames.append((kind, channel, bytes(buffer[start + HEADER.size : end])))
            start = end
        del buffer[:start]
        return frames
