# What a transport's Python client must offer (see `Transport.guestClient`). The client's source is
# shipped as the module `_codecall_client`, beside `_codecall_protocol` (whose helpers it may
# import) and `_codecall_calls` (which calls it). This stub is that contract, for the type checker.
from concurrent.futures import Future
from typing import Any

def submit(method: str, params: dict[str, Any]) -> Future[Any]:
    """Sends one JSON-RPC request; thread-safe. The future resolves to the JSON-RPC result, or
    fails with ToolError (the call failed, the host refused it, or the host cannot be reached)."""
    ...

def call(method: str, params: dict[str, Any]) -> Any:
    """Optional: sends one JSON-RPC request and blocks until its answer; thread-safe. Returns the
    JSON-RPC result or raises ToolError, as the future of `submit` would. Blocking tool calls use
    it when the client defines it (`_codecall_calls` looks it up), and `submit(...).result()`
    otherwise."""
    ...
