"""_codecall_protocol, run directly: ToolError, the request encoder and the answer decoder."""
import concurrent.futures
import json
import os
import subprocess
import sys
import unittest

from _codecall_protocol import (
    MAX_FRAME_BYTES,
    ToolError,
    answer_id,
    decode_answer,
    encode_request,
    failed_future,
    settle,
    settle_response,
)


class ToolErrorTest(unittest.TestCase):
    def test_names_the_tool_in_its_message(self):
        self.assertEqual(str(ToolError("boom", tool="read_file")), "read_file: boom")
        self.assertEqual(str(ToolError("boom")), "boom")

    def test_decodes_a_json_rpc_error(self):
        error = ToolError.from_rpc({"code": -32004, "message": "denied", "data": {"why": "budget"}}, "terminal")
        self.assertEqual((error.message, error.code, error.tool, error.data), ("denied", -32004, "terminal", {"why": "budget"}))

    def test_fills_in_a_missing_message(self):
        self.assertEqual(ToolError.from_rpc({"code": 1}).message, "tool call failed")
        self.assertEqual(ToolError.from_rpc({"message": 42}).message, "42")

    def test_reports_an_error_that_is_not_an_object_as_malformed(self):
        error = ToolError.from_rpc("nope", "x")
        self.assertEqual(str(error), "x: malformed error from host: 'nope'")
        self.assertIsNone(error.code)


class EncodeRequestTest(unittest.TestCase):
    def test_writes_one_line_with_jsonrpc_and_id_first(self):
        data = encode_request(7, "tools/call", {"name": "echo", "arguments": {"text": "a\nb"}})
        self.assertTrue(data.startswith(b'{"jsonrpc":"2.0","id":7,"method":"tools/call",'))
        self.assertEqual(data.count(b"\n"), 1)
        self.assertTrue(data.endswith(b"\n"))
        self.assertEqual(json.loads(data)["params"]["arguments"]["text"], "a\nb")

    def test_refuses_arguments_that_are_not_json_with_the_tool_named(self):
        for bad in ({"value": {1, 2}}, {"value": float("nan")}):
            with self.assertRaises(ToolError) as caught:
                encode_request(1, "tools/call", {"name": "echo", "arguments": bad})
            self.assertEqual(caught.exception.tool, "echo")
            self.assertIn("arguments must be JSON-serialisable", caught.exception.message)

    def test_refuses_arguments_nested_deeper_than_the_encoder_recurses(self):
        deep = []
        for _ in range(sys.getrecursionlimit() + 100):
            deep = [deep]
        with self.assertRaises(ToolError):
            encode_request(1, "tools/call", {"name": "echo", "arguments": {"deep": deep}})

    def test_takes_the_frame_limit_from_the_environment(self):
        self.assertEqual(MAX_FRAME_BYTES, 16 * 1024 * 1024)
        # The limit is read at import: a fresh interpreter with the variable set.
        script = (
            "from _codecall_protocol import ToolError, encode_request\n"
            "encode_request(1, 'tools/call', {'name': 'echo', 'arguments': {'t': 'x' * 10}})\n"
            "try:\n"
            "    encode_request(1, 'tools/call', {'name': 'echo', 'arguments': {'t': 'x' * 100}})\n"
            "except ToolError as error:\n"
            "    print(error)\n"
        )
        out = subprocess.run(
            [sys.executable, "-B", "-c", script], env=dict(os.environ, CODECALL_RPC_MAX_FRAME="150"), capture_output=True, text=True, check=True
        ).stdout
        self.assertRegex(out, r"^echo: request too large: \d+ bytes exceeds the 150-byte frame limit\n$")


class DecodeAnswerTest(unittest.TestCase):
    def test_lets_an_exception_that_is_not_the_decoder_s_through(self):
        # A signal handler's exception (an alarm's TimeoutError) landing while an answer is decoded
        # belongs to the script: it must not become "unreadable answer".
        import _codecall_protocol

        def interrupted(_text):
            raise TimeoutError("the script's own alarm")

        real = _codecall_protocol._raw_decode
        _codecall_protocol._raw_decode = interrupted
        try:
            with self.assertRaises(TimeoutError):
                decode_answer(b'{"jsonrpc":"2.0","id":1,"result":1}\n')
        finally:
            _codecall_protocol._raw_decode = real

    def test_decodes_an_answer(self):
        self.assertEqual(decode_answer(b'{"jsonrpc":"2.0","id":1,"result":[1]}\n'), {"jsonrpc": "2.0", "id": 1, "result": [1]})

    def test_decodes_what_json_loads_accepts_and_refuses_what_it_refuses(self):
        # Padding around the value, and no newline at all, are still answers.
        self.assertEqual(decode_answer(b' \t{"id":1}\r\n'), {"id": 1})
        self.assertEqual(decode_answer(b'{"id":1}'), {"id": 1})
        self.assertEqual(decode_answer('{"text":"\u00e9"}\n'.encode("utf-8")), {"text": "\u00e9"})
        for data in (b'{"id":1} {"id":2}\n', b'{"id":1}x\n', b"\n", b""):
            with self.assertRaises(ToolError) as caught:
                decode_answer(data)
            self.assertIn("unreadable answer from the codecall host", caught.exception.message)

    def test_raises_only_tool_error_for_garbage_and_deep_nesting(self):
        for data in (b"{garbage", b"[" * 100000 + b"]" * 100000, b"\xff\xfe"):
            with self.assertRaises(ToolError) as caught:
                decode_answer(data)
            self.assertIn("unreadable answer from the codecall host", caught.exception.message)

    def test_reads_the_id_of_an_answer_it_cannot_decode(self):
        self.assertEqual(answer_id(b'{"jsonrpc":"2.0","id":12,"result":' + b"[" * 100000), 12)
        self.assertEqual(answer_id(b'{ "jsonrpc" : "2.0" , "id" : "42-abc" , "error":'), "42-abc")
        self.assertEqual(answer_id(b'{"jsonrpc":"2.0","id":-3}'), -3)
        self.assertIsNone(answer_id(b'{"id":12,"jsonrpc":"2.0"}'))
        self.assertIsNone(answer_id(b"garbage"))


class SettleTest(unittest.TestCase):
    def test_failed_future_holds_its_error(self):
        error = ToolError("x")
        self.assertIs(failed_future(error).exception(), error)

    def test_settles_a_future_once_and_ignores_a_cancelled_one(self):
        future = concurrent.futures.Future()
        settle(future, result=1)
        settle(future, result=2)
        self.assertEqual(future.result(), 1)
        cancelled = concurrent.futures.Future()
        cancelled.cancel()
        settle(cancelled, error=ToolError("late"))
        self.assertTrue(cancelled.cancelled())

    def test_settles_from_a_response(self):
        ok, failed, malformed = concurrent.futures.Future(), concurrent.futures.Future(), concurrent.futures.Future()
        settle_response(ok, {"jsonrpc": "2.0", "id": 1, "result": {"a": 1}}, "t")
        settle_response(failed, {"jsonrpc": "2.0", "id": 2, "error": {"code": -32602, "message": "bad"}}, "t")
        settle_response(malformed, [1, 2], "t")
        self.assertEqual(ok.result(), {"a": 1})
        error = failed.exception()
        assert isinstance(error, ToolError)
        self.assertEqual((str(error), error.code), ("t: bad", -32602))
        self.assertEqual(str(malformed.exception()), "t: malformed answer from the codecall host: [1, 2]")


if __name__ == "__main__":
    unittest.main()
