"""file_client, run directly against a host played by this test in a temporary RPC dir."""
import json
import os
import shutil
import tempfile
import time
import unittest

from _codecall_protocol import ToolError
from file_client import FileClient

TOKEN = "t" * 64
TIMEOUT = 10


def tool_error(future):
    """The ToolError a call failed with (a failure of another kind, or none, fails the test)."""
    error = future.exception(TIMEOUT)
    assert isinstance(error, ToolError), error
    return error


class FileClientTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="codecall-test-")
        self.addCleanup(shutil.rmtree, self.dir, True)
        for sub in ("guest-tmp", "requests", "responses"):
            os.mkdir(os.path.join(self.dir, sub))
        self.client = FileClient(self.dir, TOKEN)

    def take_requests(self, count):
        """Waits for `count` request files and takes them as the host does: {id: (token, frame)}."""
        requests_dir = os.path.join(self.dir, "requests")
        deadline = time.monotonic() + TIMEOUT
        while len(os.listdir(requests_dir)) < count:
            self.assertLess(time.monotonic(), deadline, "no request file came")
            time.sleep(0.005)
        taken = {}
        for name in os.listdir(requests_dir):
            with open(os.path.join(requests_dir, name), "rb") as request_file:
                token, frame = request_file.read().split(b"\n", 1)
            os.unlink(os.path.join(requests_dir, name))
            taken[name[: -len(".json")]] = (token.decode(), json.loads(frame))
        return taken

    def answer(self, request_id, data):
        staged = os.path.join(self.dir, "guest-tmp", "answer")
        with open(staged, "wb") as answer_file:
            answer_file.write(data)
        os.rename(staged, os.path.join(self.dir, "responses", request_id + ".json"))

    def test_fails_calls_outside_a_run(self):
        error = tool_error(FileClient(None, None).submit("tools/call", {"name": "echo"}))
        self.assertEqual(str(error), "echo: CODECALL_RPC_DIR is not set: this module only works inside a codecall run")

    def test_writes_each_request_whole_with_the_token_and_settles_it_from_its_answer(self):
        call = self.client.submit("tools/call", {"name": "echo", "arguments": {"text": "é"}})
        [(request_id, (token, frame))] = self.take_requests(1).items()
        self.assertRegex(request_id, r"^%d-[0-9a-f]{32}$" % os.getpid())
        self.assertEqual(token, TOKEN)
        self.assertEqual(frame, {"jsonrpc": "2.0", "id": request_id, "method": "tools/call", "params": {"name": "echo", "arguments": {"text": "é"}}})
        self.assertEqual(os.listdir(os.path.join(self.dir, "guest-tmp")), [])
        self.answer(request_id, b'{"jsonrpc":"2.0","id":"%s","result":"done"}' % request_id.encode())
        self.assertEqual(call.result(TIMEOUT), "done")
        deadline = time.monotonic() + TIMEOUT
        while os.listdir(os.path.join(self.dir, "responses")) and time.monotonic() < deadline:
            time.sleep(0.005)
        self.assertEqual(os.listdir(os.path.join(self.dir, "responses")), [], "the answer is removed once read")

    def test_gives_each_call_its_own_answer_and_error(self):
        good = self.client.submit("tools/call", {"name": "good", "arguments": {}})
        bad = self.client.submit("tools/call", {"name": "bad", "arguments": {}})
        for request_id, (_, frame) in self.take_requests(2).items():
            if frame["params"]["name"] == "bad":
                self.answer(request_id, json.dumps({"jsonrpc": "2.0", "id": request_id, "error": {"code": -32602, "message": "no"}}).encode())
            else:
                self.answer(request_id, json.dumps({"jsonrpc": "2.0", "id": request_id, "result": 1}).encode())
        self.assertEqual(good.result(TIMEOUT), 1)
        error = tool_error(bad)
        self.assertEqual((str(error), error.code), ("bad: no", -32602))

    def test_an_unreadable_answer_fails_only_its_own_call(self):
        deep = self.client.submit("tools/call", {"name": "deep", "arguments": {}})
        fine = self.client.submit("tools/call", {"name": "fine", "arguments": {}})
        for request_id, (_, frame) in self.take_requests(2).items():
            if frame["params"]["name"] == "deep":
                self.answer(request_id, b"[" * 100000 + b"]" * 100000)
            else:
                self.answer(request_id, json.dumps({"jsonrpc": "2.0", "id": request_id, "result": "fine"}).encode())
        self.assertEqual(fine.result(TIMEOUT), "fine")
        error = tool_error(deep)
        self.assertEqual(error.tool, "deep")
        self.assertIn("unreadable answer from the codecall host: RecursionError", error.message)

    def test_pending_calls_fail_when_the_host_stops_serving(self):
        call = self.client.submit("tools/call", {"name": "late", "arguments": {}})
        self.take_requests(1)
        open(os.path.join(self.dir, "closed"), "w").close()
        self.assertEqual(str(tool_error(call)), "late: the codecall host stopped serving this run; the call was not answered")

    def test_pending_calls_fail_when_the_rpc_dir_is_gone(self):
        call = self.client.submit("tools/call", {"name": "late", "arguments": {}})
        self.take_requests(1)
        shutil.rmtree(self.dir)
        self.assertIn("late: the codecall host stopped serving this run", str(tool_error(call)))

    def test_refuses_arguments_that_are_not_json_without_writing_a_request(self):
        error = tool_error(self.client.submit("tools/call", {"name": "echo", "arguments": {"x": object()}}))
        self.assertIn("arguments must be JSON-serialisable", str(error))
        self.assertEqual(os.listdir(os.path.join(self.dir, "requests")), [])


if __name__ == "__main__":
    unittest.main()
