"""A stand-in for a transport's client (the contract is _codecall_client.pyi): it answers every
request at once with the request itself, or fails calls to the tool "broken"."""
from __future__ import annotations

import concurrent.futures

from _codecall_protocol import ToolError, failed_future

def submit(method: str, params: dict) -> concurrent.futures.Future:
    if params.get("name") == "broken":
        return failed_future(ToolError("it broke", code=-32004, tool="broken"))
    future = concurrent.futures.Future()
    future.set_result({"method": method, "params": params})
    return future
