import { createCodeSession, defineTool } from "@codecall/core";
import { createEnvironment } from "@codecall/backend-local";
import { createTransport } from "@codecall/transport-uds";
const environment = await createEnvironment();
const echo = defineTool({ name: "echo", description: "e", parameters: { type: "object", properties: { text: { type: "string" } } }, execute: ({ text }) => ({ text }) });
const session = createCodeSession({ environment, transport: createTransport(), tools: [echo], limits: { timeoutMs: 10000, killGraceMs: 1000, maxToolCalls: 3, maxStdoutBytes: 100 } });
const show = (r) => console.log(JSON.stringify({ s: r.status, cell: r.cell, state: r.state, out: r.output, calls: r.toolCallsMade, tr: r.stdoutTruncated }));
show(await session.run(`
import threading, time, codecall
results = []
def later():
    time.sleep(1)
    try:
        results.append(codecall.echo(text="late"))
    except Exception as e:
        results.append(repr(e))
threading.Thread(target=later).start()
print(codecall.echo(text="a"), codecall.echo(text="b"))
`));
show(await session.run("import time; time.sleep(2); print(results)"));
show(await session.run("print([codecall.echo(text=str(i)) for i in range(3)])"));
show(await session.run("print(codecall.echo(text='4th'))"));
show(await session.run("print('x' * 1000)"));
show(await session.run("import sys; print('abc', end=''); sys.stdout.flush(); print(' def', file=sys.stderr); sys.exit(3)"));
show(await session.run("import os; print('pid', os.getpid()); print(input())"));
show(await session.run("from concurrent.futures import ThreadPoolExecutor\npool = ThreadPoolExecutor(2)\nprint(list(pool.map(lambda i: codecall.echo(text=str(i))['text'], range(2))))"));
show(await session.run("print(list(pool.map(lambda i: codecall.echo(text=str(i))['text'], range(2))))"));
show(await session.run("import multiprocessing as mp\nctx = mp.get_context('fork')\nwith ctx.Pool(2) as p: print(p.map(str, range(3)))"));
show(await session.run("import os, signal; os.kill(os.getpid(), signal.SIGKILL)"));
show(await session.run("print('after kill', 'results' in globals())"));
await session.close();
await environment.close();
