# codecall environment agent: the event loop's two parts, descriptors and timers.
#
# One thread serves everything, so nothing may block: every pipe and socket is non-blocking and
# watched for exactly the events its owner can act on now. Descriptors epoll refuses (regular files,
# /dev/zero) are never waiting for anything: they count as ready on every turn they want events.
import heapq
import itertools
import selectors
import time

READ = selectors.EVENT_READ
WRITE = selectors.EVENT_WRITE


def fileno(fileobj):
    return fileobj if isinstance(fileobj, int) else fileobj.fileno()


class Watcher:
    """The descriptors the loop waits on, each with the events it wants and its callback(mask)."""

    def __init__(self):
        self.selector = selectors.DefaultSelector()
        self.wanted = {}  # fd -> events registered with the selector
        self.always_ready = {}  # fd -> (events, callback) for descriptors the selector refuses

    def set(self, fileobj, events, callback):
        fd = fileno(fileobj)
        if fd in self.always_ready:
            self.always_ready[fd] = (events, callback)
            return
        current = self.wanted.get(fd, 0)
        try:
            if events and current:
                self.selector.modify(fd, events, callback)
            elif events:
                self.selector.register(fd, events, callback)
            elif current:
                self.selector.unregister(fd)
        except PermissionError:
            # epoll takes no regular files: they never block, so they are always ready.
            self.always_ready[fd] = (events, callback)
            return
        if events:
            self.wanted[fd] = events
        else:
            self.wanted.pop(fd, None)

    def forget(self, fileobj):
        fd = fileno(fileobj)
        self.always_ready.pop(fd, None)
        if self.wanted.pop(fd, None):
            self.selector.unregister(fd)

    def has_ready(self):
        return any(events for events, _ in self.always_ready.values())

    def poll(self, timeout):
        """The (callback, mask) pairs ready now, waiting at most `timeout` seconds (None: no limit)."""
        if self.has_ready():
            timeout = 0
        ready = [(key.data, mask) for key, mask in self.selector.select(timeout)]
        for events, callback in list(self.always_ready.values()):
            if events:
                ready.append((callback, events))
        return ready


class Timers:
    """Callbacks due at a monotonic time; cancelled ones are skipped when they come up."""

    def __init__(self):
        self.heap = []
        self.order = itertools.count()

    def call_later(self, seconds, callback):
        entry = [time.monotonic() + seconds, next(self.order), callback]
        heapq.heappush(self.heap, entry)
        return entry

    @staticmethod
    def cancel(entry):
        entry[2] = None

    def timeout(self):
        """Seconds until the next timer, or None when there is none."""
        while self.heap and self.heap[0][2] is None:
            heapq.heappop(self.heap)
        if not self.heap:
            return None
        return max(0.0, self.heap[0][0] - time.monotonic())

    def run_due(self):
        now = time.monotonic()
        while self.heap and self.heap[0][0] <= now:
            callback = heapq.heappop(self.heap)[2]
            if callback is not None:
                callback()
