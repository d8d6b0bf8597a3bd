"""codecall guest runtime: the JSON-RPC wire format every transport client speaks, and ToolError.

Shipped beside the generated tools module (see python-guest.ts); a transport's client imports what
it needs from here. Imports are kept to what every call needs: a script pays for them at start-up
(asyncio alone costs tens of milliseconds, so `_codecall_calls` imports it when first used).
"""
from __future__ import annotations

import concurrent.futures
import json
import os
import re

TYPE_CHECKING = False
if TYPE_CHECKING:  # Annotations only: importing typing would cost every script milliseconds.
    from typing import Any, Optional


class ToolError(Exception):
    """A tool call failed: the tool raised, the arguments were invalid, the tool is not
    available, the call budget is spent, the call was denied approval, or the connection to the
    host was lost.

    `code` is the JSON-RPC error code, `tool` the tool's name, `data` any structured detail.
    """

    def __init__(self, message: str, code: Optional[int] = None, tool: Optional[str] = None, data: Any = None):
        super().__init__(message)
        self.message = message
        self.code = code
        self.tool = tool
        self.data = data

    @classmethod
    def from_rpc(cls, error: Any, tool: Optional[str] = None) -> ToolError:
        """The ToolError for a JSON-RPC `error` member (anything else is reported as malformed)."""
        if not isinstance(error, dict):
            return cls("malformed error from host: %r" % (error,), tool=tool)
        message = str(error.get("message", "tool call failed"))
        return cls(message, code=error.get("code"), tool=tool, data=error.get("data"))

    def __str__(self) -> str:
        return "%s: %s" % (self.tool, self.message) if self.tool else self.message


MAX_FRAME_BYTES = int(os.environ.get("CODECALL_RPC_MAX_FRAME") or 16 * 1024 * 1024)


# One encoder for every request: json.dumps with options builds a new one per call.
_encoder = json.JSONEncoder(allow_nan=False, separators=(",", ":"))


def encode_request(request_id: Any, method: str, params: dict) -> bytes:
    """One NDJSON frame; `jsonrpc` and `id` come first so the host can answer even a frame it
    refuses as too large. Raises ToolError for arguments that are not JSON."""
    try:
        text = _encoder.encode({"jsonrpc": "2.0", "id": request_id, "method": method, "params": params})
    except (TypeError, ValueError, RecursionError) as error:
        # RecursionError: nested deeper than Python's encoder recurses (the host refuses far less).
        raise ToolError("arguments must be JSON-serialisable: %s" % error, tool=params.get("name")) from None
    data = text.encode("utf-8") + b"\n"
    if len(data) > MAX_FRAME_BYTES:
        raise ToolError(
            "request too large: %d bytes exceeds the %d-byte frame limit" % (len(data), MAX_FRAME_BYTES),
            tool=params.get("name"),
        )
    return data


def failed_future(error: BaseException) -> concurrent.futures.Future:
    """A future that has already failed with `error`."""
    future = concurrent.futures.Future()
    future.set_exception(error)
    return future


def settle(future: concurrent.futures.Future, result: Any = None, error: Optional[BaseException] = None) -> None:
    """Sets the future's outcome unless it already has one."""
    # The caller may have cancelled the future (asyncio task cancelled): that is not an error.
    try:
        if error is not None:
            future.set_exception(error)
        else:
            future.set_result(result)
    except concurrent.futures.InvalidStateError:
        pass


# The host writes `jsonrpc` and `id` first in every answer, as the guest does in every request.
_ANSWER_ID = rb'^\s*\{\s*"jsonrpc"\s*:\s*"2\.0"\s*,\s*"id"\s*:\s*(-?\d{1,16}|"[^"\\]{1,128}")\s*[,}]'
# Compiled when first needed: only an answer that cannot be decoded needs it, and compiling it
# would cost every script's start a fraction of a millisecond.
_answer_id_pattern: Optional[re.Pattern] = None


def answer_id(data: bytes) -> Any:
    """The id of an answer that cannot be decoded (too deep for `json`, cut, garbled), or None."""
    global _answer_id_pattern
    if _answer_id_pattern is None:
        _answer_id_pattern = re.compile(_ANSWER_ID)  # Two threads may both compile it: same result.
    match = _answer_id_pattern.match(data[:512])
    if match is None:
        return None
    raw = match.group(1)
    return raw[1:-1].decode("utf-8", "replace") if raw.startswith(b'"') else int(raw)


# Decodes one JSON value from the start of a text, without json.loads's detours (encoding
# detection, a regex at each end): an answer is one object, the host writes no padding.
_raw_decode = json.JSONDecoder().raw_decode


def decode_answer(data: bytes) -> Any:
    """Decodes one answer (newline included). Raises ToolError, never anything else: a few thousand
    levels of nesting make `json` raise RecursionError, which must fail one call, not the thread
    that reads them all."""
    try:
        text = data.decode("utf-8", "surrogatepass")
        try:
            value, end = _raw_decode(text)
            if end == len(text) or text[end:].isspace():
                return value
        except ValueError:
            pass
        # Anything else (padding first, trailing data, not JSON): json.loads, whose error says what is wrong.
        return json.loads(text)
    except (ValueError, RecursionError) as error:
        # Only what decoding raises: a signal handler's exception (a TimeoutError from an alarm)
        # that lands here is the script's, and must reach its `except`.
        raise ToolError("unreadable answer from the codecall host: %s: %s" % (type(error).__name__, error)) from None


def response_outcome(message: Any, tool: Optional[str]) -> tuple[Any, Optional[ToolError]]:
    """(result, error) of a call from its JSON-RPC response (a decoded object)."""
    if not isinstance(message, dict):
        return None, ToolError("malformed answer from the codecall host: %r" % (message,), tool=tool)
    if "error" in message:
        return None, ToolError.from_rpc(message["error"], tool)
    return message.get("result"), None


def settle_response(future: concurrent.futures.Future, message: Any, tool: Optional[str]) -> None:
    """Settles a call's future from its JSON-RPC response (a decoded object)."""
    settle(future, *response_outcome(message, tool))
