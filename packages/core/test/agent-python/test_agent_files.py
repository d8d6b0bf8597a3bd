"""Files through the agent: writes with mode and parents, bounded reads, removal, private temp dirs."""
import os
import shutil
import stat
import tempfile
import unittest

from agent_harness import AgentTestCase
from agent_wire import CANCEL, END, WINDOW, frame


class FileTest(AgentTestCase):

    def write(self, path, data, **options):
        stream = self.agent.new_id()
        request = self.agent.request("write_file", path=path, stream=stream, **options)
        self.agent.send_stream(stream, data)
        self.agent.send(frame(END, stream))
        return self.agent.reply(request)

    def read(self, path, **options):
        stream = self.agent.new_id()
        request = self.agent.request("read_file", path=path, stream=stream, **options)
        data = self.agent.read_stream(stream)
        return data, self.agent.reply(request)

    def test_writes_binary_data_creating_parents(self):
        data = os.urandom(3 * WINDOW + 7)
        self.assertEqual(self.write(self.path("deep", "er", "data.bin"), data), {"ok": {}})
        with open(self.path("deep", "er", "data.bin"), "rb") as file:
            self.assertEqual(file.read(), data)

    def test_applies_the_mode_before_any_byte_is_written_and_overwrites(self):
        self.write(self.path("secret"), b"first, and longer", mode=0o600)
        self.assertEqual(stat.S_IMODE(os.stat(self.path("secret")).st_mode), 0o600)
        self.write(self.path("secret"), b"second")
        with open(self.path("secret"), "rb") as file:
            self.assertEqual(file.read(), b"second")

    def test_refuses_a_write_into_a_directory_and_cancels_its_stream(self):
        stream = self.agent.new_id()
        request = self.agent.request("write_file", path=self.dir, stream=stream)
        self.agent.take(lambda kind, channel, _p: kind == CANCEL and channel == stream)
        self.assertEqual(self.agent.reply(request)["error"]["code"], "INVALID_PATH")

    def test_reads_a_file_whole_and_within_max_bytes(self):
        data = os.urandom(2 * WINDOW + 5)
        with open(self.path("data"), "wb") as file:
            file.write(data)
        self.assertEqual(self.read(self.path("data")), (data, {"ok": {"size": len(data)}}))
        self.assertEqual(self.read(self.path("data"), maxBytes=len(data)), (data, {"ok": {"size": len(data)}}))

    def test_refuses_a_file_over_max_bytes_after_reading_one_byte_more(self):
        data, reply = self.read("/dev/zero", maxBytes=4096)
        self.assertEqual(len(data), 4097)
        self.assertEqual(reply["error"]["code"], "FILE_TOO_LARGE")

    def test_says_what_is_missing_or_a_directory(self):
        data, reply = self.read(self.path("nope"))
        self.assertEqual((data, reply["error"]["code"]), (b"", "FILE_NOT_FOUND"))
        data, reply = self.read(self.dir)
        self.assertEqual((data, reply["error"]["code"]), (b"", "INVALID_PATH"))

    def test_refuses_a_fifo_without_waiting_for_its_other_end(self):
        fifo = self.path("fifo")
        os.mkfifo(fifo)
        data, reply = self.read(fifo)
        self.assertEqual((data, reply["error"]["code"]), (b"", "INVALID_PATH"))
        self.assertIn("Not a regular file", reply["error"]["message"])
        stream = self.agent.new_id()
        request = self.agent.request("write_file", path=fifo, stream=stream)
        self.agent.take(lambda kind, channel, _p: kind == CANCEL and channel == stream)
        self.assertEqual(self.agent.reply(request)["error"]["code"], "INVALID_PATH")
        # With a reader on the other end the open succeeds; the descriptor's type still refuses it.
        reader = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)
        try:
            stream = self.agent.new_id()
            request = self.agent.request("write_file", path=fifo, stream=stream)
            self.agent.take(lambda kind, channel, _p: kind == CANCEL and channel == stream)
            self.assertEqual(self.agent.reply(request)["error"]["code"], "INVALID_PATH")
        finally:
            os.close(reader)
        self.assertEqual(self.write(self.path("after"), b"fine"), {"ok": {}})

    def test_removes_trees_files_links_and_nothing(self):
        os.makedirs(self.path("tree", "a"))
        with open(self.path("tree", "a", "b"), "w") as file:
            file.write("x")
        outside = tempfile.mkdtemp(prefix="codecall-agent-outside-")
        self.addCleanup(shutil.rmtree, outside, True)
        os.symlink(outside, self.path("link"))
        for name in ("tree", "link", "never-existed"):
            self.assertEqual(self.agent.call("remove", path=self.path(name)), {"ok": {}})
        self.assertEqual(os.listdir(self.dir), [])
        self.assertTrue(os.path.isdir(outside))  # the link went, not what it pointed to

    def test_makes_private_temp_dirs(self):
        first = self.agent.call("mkdtemp", root=self.dir)["ok"]["path"]
        second = self.agent.call("mkdtemp", root=self.dir)["ok"]["path"]
        self.assertNotEqual(first, second)
        for path in (first, second):
            self.assertEqual(os.path.dirname(path), self.dir)
            self.assertEqual(stat.S_IMODE(os.stat(path).st_mode), 0o700)
        self.assertEqual(self.agent.call("mkdtemp", root=self.path("missing"))["error"]["code"], "FAILED")

    def test_answers_a_request_it_cannot_read(self):
        self.assertEqual(self.agent.call("no-such-op")["error"]["code"], "BAD_REQUEST")
        self.assertEqual(self.agent.call("remove")["error"]["code"], "BAD_REQUEST")


if __name__ == "__main__":
    unittest.main()
