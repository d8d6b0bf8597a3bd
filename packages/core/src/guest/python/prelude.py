# Part of the codecall guest module: what every transport client builds on.
#
# Imports are kept to what every call needs: a script pays for them at start-up (asyncio alone
# costs tens of milliseconds, so the async helpers import it when first used).
#
# The generated module is: this prelude, then a transport's client (which must define
# `_codecall_submit(method, params) -> concurrent.futures.Future`), then one stub per tool.
from __future__ import annotations

import concurrent.futures as _futures
import json as _json
import os as _os
import re as _re


class ToolError(Exception):
    """A tool call failed: the tool raised, the arguments were invalid, the tool is not
    available, the call budget is spent, or the connection to the host was lost.

    `code` is the JSON-RPC error code, `tool` the tool's name, `data` any structured detail.
    """

    def __init__(self, message, code=None, tool=None, data=None):
        super().__init__(message)
        self.message = message
        self.code = code
        self.tool = tool
        self.data = data

    @classmethod
    def from_rpc(cls, error, tool=None):
        if not isinstance(error, dict):
            return cls("malformed error from host: %r" % (error,), tool=tool)
        message = str(error.get("message", "tool call failed"))
        return cls(message, code=error.get("code"), tool=tool, data=error.get("data"))

    def __str__(self):
        return "%s: %s" % (self.tool, self.message) if self.tool else self.message


_MAX_FRAME_BYTES = int(_os.environ.get("CODECALL_RPC_MAX_FRAME") or 16 * 1024 * 1024)


def _codecall_encode(request_id, method, params):
    """One NDJSON frame; `jsonrpc` and `id` come first so the host can answer even a frame it
    refuses as too large. Raises ToolError for arguments that are not JSON."""
    try:
        text = _json.dumps(
            {"jsonrpc": "2.0", "id": request_id, "method": method, "params": params},
            allow_nan=False,
            separators=(",", ":"),
        )
    except (TypeError, ValueError, RecursionError) as error:
        # RecursionError: nested deeper than Python's encoder recurses (the host refuses far less).
        raise ToolError("arguments must be JSON-serialisable: %s" % error, tool=params.get("name")) from None
    data = text.encode("utf-8") + b"\n"
    if len(data) > _MAX_FRAME_BYTES:
        raise ToolError(
            "request too large: %d bytes exceeds the %d-byte frame limit" % (len(data), _MAX_FRAME_BYTES),
            tool=params.get("name"),
        )
    return data


def _codecall_failed_future(error):
    future = _futures.Future()
    future.set_exception(error)
    return future


def _codecall_settle(future, result=None, error=None):
    # The caller may have cancelled the future (asyncio task cancelled): that is not an error.
    try:
        if error is not None:
            future.set_exception(error)
        else:
            future.set_result(result)
    except _futures.InvalidStateError:
        pass


# The host writes `jsonrpc` and `id` first in every answer, as the guest does in every request.
_ANSWER_ID = _re.compile(rb'^\s*\{\s*"jsonrpc"\s*:\s*"2\.0"\s*,\s*"id"\s*:\s*(-?\d{1,16}|"[^"\\]{1,128}")\s*[,}]')


def _codecall_answer_id(data):
    """The id of an answer that cannot be decoded (too deep for `json`, cut, garbled), or None."""
    match = _ANSWER_ID.match(data[:512])
    if match is None:
        return None
    raw = match.group(1)
    return raw[1:-1].decode("utf-8", "replace") if raw.startswith(b'"') else int(raw)


def _codecall_decode(data):
    """Decodes one answer. Raises ToolError, never anything else: a few thousand levels of nesting
    make `json` raise RecursionError, which must fail one call, not the thread that reads them all."""
    try:
        return _json.loads(data)
    except Exception as error:
        raise ToolError("unreadable answer from the codecall host: %s: %s" % (type(error).__name__, error)) from None


def _codecall_settle_response(future, message, tool):
    """Settles a call's future from its JSON-RPC response (a decoded object)."""
    if not isinstance(message, dict):
        _codecall_settle(future, error=ToolError("malformed answer from the codecall host: %r" % (message,), tool=tool))
    elif "error" in message:
        _codecall_settle(future, error=ToolError.from_rpc(message["error"], tool))
    else:
        _codecall_settle(future, result=message.get("result"))


def _codecall_arguments(arguments):
    # An argument left at None is not sent, so the tool applies its own default.
    return {name: value for name, value in arguments.items() if value is not None}
