# Guest side of the refused-requests cases (describe-execution.ts, describe-sessions.ts): sends
# requests the host refuses (an unknown tool, 60 KB of arguments each) until the host says the
# budget of refused requests is spent, and prints after how many. A case appends what it checks next.
import _codecall_client as client  # pyright: ignore[reportMissingModuleSource]
from codecall import ToolError, echo  # pyright: ignore[reportMissingImports]

pad = "x" * 60000
for sent in range(1, 200):
    try:
        client.submit("tools/call", {"name": "ghost", "arguments": {"pad": pad}}).result()
    except ToolError as error:
        if "refused requests already took" in str(error):
            break
print("cut off after", sent)
