"""codecall guest runtime: calling tools through the run's transport client.

The generated tools module imports `call` and `acall` for its stubs and re-exports `call_tool` and
`call_tool_async`. The client is the transport's, shipped as `_codecall_client` (see
_codecall_client.pyi for what it must offer).
"""
from __future__ import annotations

# The transport's client, shipped under this name for each run; _codecall_client.pyi is its contract.
import _codecall_client  # pyright: ignore[reportMissingModuleSource]
from _codecall_client import submit  # pyright: ignore[reportMissingModuleSource]

# A client's own blocking call, when it has one, answers without a future (and the thread hand-off
# a future costs): the socket client's caller reads its own answer.
_blocking_call = getattr(_codecall_client, "call", None)

TYPE_CHECKING = False
if TYPE_CHECKING:  # Annotations only: importing typing would cost every script milliseconds.
    from typing import Any


def _sent_arguments(arguments: dict) -> dict:
    # An argument left at None is not sent, so the tool applies its own default.
    return {name: value for name, value in arguments.items() if value is not None}


def call(name: str, arguments: dict) -> Any:
    """Calls tool `name` and blocks until its result arrives. Raises ToolError."""
    params = {"name": name, "arguments": _sent_arguments(arguments)}
    if _blocking_call is not None:
        return _blocking_call("tools/call", params)
    return submit("tools/call", params).result()


async def acall(name: str, arguments: dict) -> Any:
    """Calls tool `name` and awaits its result. Raises ToolError."""
    import asyncio  # Here, not at the top: only scripts that use the async variants pay for it.

    future = submit("tools/call", {"name": name, "arguments": _sent_arguments(arguments)})
    return await asyncio.wrap_future(future)


def call_tool(tool: str, /, **arguments: Any) -> Any:
    """Calls any allowed tool by name and blocks until its result arrives. Raises ToolError."""
    return call(tool, arguments)


async def call_tool_async(tool: str, /, **arguments: Any) -> Any:
    """Async variant of call_tool(), for asyncio.gather()."""
    return await acall(tool, arguments)
