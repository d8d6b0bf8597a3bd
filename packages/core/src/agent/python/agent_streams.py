# codecall environment agent: streams between a descriptor and the host.
#
# An Endpoint is one descriptor the loop watches (a pipe end, a file, a socket); a Source carries
# what is read from it to the host, a Sink writes what the host sends to it. Both keep to the
# protocol's window: a Source reads only while the host has granted credit, a Sink returns credit
# only for bytes it has written, so every stream's buffers stay bounded on both sides.
import os
import socket

from agent_loop import READ, WRITE
from agent_wire import CANCEL, CHUNK, DATA, END, WINDOW, ProtocolError, credit_frame, frame


class Endpoint:
    """A descriptor and the Source and/or Sink through it; closed once both are done."""

    def __init__(self, agent, fileobj):
        self.agent = agent
        self.fileobj = fileobj
        self.source = None
        self.sink = None
        self.closed = False

    def read(self, size):
        return os.read(self.fileobj, size)

    def write(self, data):
        return os.write(self.fileobj, data)

    def end_writing(self):
        """The sink is complete: a pipe or a file is closed (by `close` once nothing reads it)."""

    def release(self):
        os.close(self.fileobj)

    def update(self):
        if self.closed:
            return
        events = 0
        if self.source is not None and self.source.wants_read():
            events |= READ
        if self.sink is not None and self.sink.pending:
            events |= WRITE
        self.agent.watcher.set(self.fileobj, events, self.on_events)

    def on_events(self, mask):
        if mask & WRITE and self.sink is not None:
            self.sink.write_some()
        if mask & READ and self.source is not None:
            self.source.read_some()
        self.update()

    def part_done(self):
        """Closes the descriptor once neither direction needs it; else stops watching what ended."""
        source_done = self.source is None or self.source.done
        sink_done = self.sink is None or self.sink.done
        if source_done and sink_done:
            self.close()
        else:
            self.update()

    def close(self):
        if self.closed:
            return
        self.closed = True
        self.agent.watcher.forget(self.fileobj)
        try:
            self.release()
        except OSError:
            pass

    def abort(self):
        """Ends both directions now (the agent is closing it): the host hears END and CANCEL."""
        if self.source is not None:
            self.source.finish()
        if self.sink is not None:
            self.sink.refuse()
        self.close()


class SocketEndpoint(Endpoint):
    def read(self, size):
        return self.fileobj.recv(size)

    def write(self, data):
        return self.fileobj.send(data)

    def end_writing(self):
        try:
            self.fileobj.shutdown(socket.SHUT_WR)
        except OSError:
            pass  # the peer is gone; its side of the stream tells the host

    def release(self):
        self.fileobj.close()


class Source:
    """Bytes read from an endpoint, sent to the host as stream `stream_id` within its credit.

    `limit` stops it after that many bytes; `on_finished(total)` runs when it ends for any reason.
    """

    def __init__(self, agent, endpoint, stream_id, limit=None, on_finished=None):
        self.agent = agent
        self.endpoint = endpoint
        self.id = stream_id
        self.credit = WINDOW
        self.total = 0
        self.limit = limit
        self.on_finished = on_finished
        self.done = False
        endpoint.source = self
        agent.sources[stream_id] = self
        endpoint.update()

    def wants_read(self):
        return not self.done and self.credit > 0

    def read_some(self):
        if self.done or self.credit <= 0 or self.agent.backlogged():
            return
        size = min(CHUNK, self.credit)
        if self.limit is not None:
            size = min(size, self.limit - self.total)
        try:
            data = self.endpoint.read(size) if size > 0 else b""
        except (BlockingIOError, InterruptedError):
            return
        except OSError:
            data = b""  # EIO, a reset: the stream ends here
        if not data:
            self.finish()
            return
        self.credit -= len(data)
        self.total += len(data)
        self.agent.send(frame(DATA, self.id, data))

    def on_credit(self, count):
        self.credit += count
        if self.credit > WINDOW:
            raise ProtocolError("the host granted more credit than it was sent on stream %d" % self.id)
        self.endpoint.update()

    def finish(self):
        """Ends the stream: END to the host."""
        if self.done:
            return
        self.agent.send(frame(END, self.id))
        self.stop()

    def stop(self):
        """Ends the stream without telling the host (it cancelled it)."""
        if self.done:
            return
        self.done = True
        self.agent.sources.pop(self.id, None)
        if self.on_finished is not None:
            self.on_finished(self.total)
        self.endpoint.part_done()


class Sink:
    """Bytes the host sends as stream `stream_id`, written to an endpoint; credit for each write.

    `on_finished(error)` runs once when it ends: error is None after the host's END was written.
    """

    def __init__(self, agent, endpoint, stream_id, on_finished=None):
        self.agent = agent
        self.endpoint = endpoint
        self.id = stream_id
        self.pending = bytearray()
        self.ending = False
        self.done = False
        self.on_finished = on_finished
        endpoint.sink = self
        agent.sinks[stream_id] = self

    def on_data(self, data):
        if len(self.pending) + len(data) > WINDOW:
            raise ProtocolError("the host overran the window of stream %d" % self.id)
        self.pending += data
        self.write_some()
        self.endpoint.update()

    def on_end(self):
        self.ending = True
        if not self.pending:
            self.complete(None)

    def write_some(self):
        if not self.pending:
            return
        try:
            written = self.endpoint.write(self.pending)
        except (BlockingIOError, InterruptedError):
            return
        except OSError as error:
            self.refuse(error)
            return
        del self.pending[:written]
        self.agent.send(credit_frame(self.id, written))
        if self.ending and not self.pending:
            self.complete(None)

    def refuse(self, error=None):
        """Takes no more of the stream (the reader is gone, or the agent closes it): CANCEL to the host."""
        if self.done:
            return
        self.agent.send(frame(CANCEL, self.id))
        self.pending = bytearray()
        self.complete(error or OSError("closed"))

    def complete(self, error):
        if self.done:
            return
        self.done = True
        self.agent.sinks.pop(self.id, None)
        if error is None:
            self.endpoint.end_writing()
        if self.on_finished is not None:
            self.on_finished(error)
        self.endpoint.part_done()
