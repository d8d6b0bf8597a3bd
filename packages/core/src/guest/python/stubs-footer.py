# Calling helpers used by the generated stubs below.


def _codecall_call(name, arguments):
    return _codecall_submit("tools/call", {"name": name, "arguments": _codecall_arguments(arguments)}).result()


async def _codecall_acall(name, arguments):
    import asyncio

    future = _codecall_submit("tools/call", {"name": name, "arguments": _codecall_arguments(arguments)})
    return await asyncio.wrap_future(future)


def call_tool(tool, /, **arguments):
    """Calls any allowed tool by name and blocks until its result arrives. Raises ToolError."""
    return _codecall_call(tool, arguments)


async def call_tool_async(tool, /, **arguments):
    """Async variant of call_tool(), for asyncio.gather()."""
    return await _codecall_acall(tool, arguments)
