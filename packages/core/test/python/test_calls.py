"""_codecall_calls, run directly against a stand-in client (_codecall_client.py beside this file)."""
import asyncio
import subprocess
import sys
import unittest

from _codecall_calls import acall, call, call_tool, call_tool_async
from _codecall_protocol import ToolError


def request(name, arguments):
    return {"method": "tools/call", "params": {"name": name, "arguments": arguments}}


class CallTest(unittest.TestCase):
    def test_sends_a_tools_call_and_returns_its_result(self):
        # The stand-in answers with the request it was sent.
        self.assertEqual(call("echo", {"text": "hi"}), request("echo", {"text": "hi"}))

    def test_leaves_out_arguments_that_are_none(self):
        self.assertEqual(call("read", {"path": "a", "limit": None, "zero": 0, "empty": ""}), request("read", {"path": "a", "zero": 0, "empty": ""}))

    def test_call_tool_takes_any_argument_name_by_keyword(self):
        # `tool` is positional-only, so a tool may have a parameter named `tool` too.
        self.assertEqual(call_tool("pick", tool="hammer", size=None), request("pick", {"tool": "hammer"}))

    def test_raises_tool_error(self):
        with self.assertRaises(ToolError) as caught:
            call_tool("broken")
        self.assertEqual((str(caught.exception), caught.exception.code), ("broken: it broke", -32004))

    def test_async_variants_run_under_gather(self):
        async def gathered():
            return await asyncio.gather(acall("a", {"n": 1}), call_tool_async("b", m=None), call_tool_async("c", k=2))

        self.assertEqual(asyncio.run(gathered()), [request("a", {"n": 1}), request("b", {}), request("c", {"k": 2})])

    def test_async_variants_raise_tool_error(self):
        with self.assertRaises(ToolError):
            asyncio.run(call_tool_async("broken"))

    def test_importing_costs_no_asyncio_and_no_typing(self):
        # Both cost a script milliseconds at start-up; only the async variants may bring asyncio.
        # -S: no site, which in some installs imports typing itself.
        script = "import sys; before = set(sys.modules); import _codecall_calls; print(sorted({'asyncio', 'typing'} & (set(sys.modules) - before)))"
        out = subprocess.run([sys.executable, "-B", "-S", "-c", script], capture_output=True, text=True, check=True).stdout
        self.assertEqual(out, "[]\n")


if __name__ == "__main__":
    unittest.main()
