// Local backend + file transport: the no-op round trip, how many executeOneshot calls (polls) one
// tool call costs, and ten concurrent 0.3 s tool calls. Local polls are cheap (a fork of sh); on a
// remote backend each poll is one backend exec, so polls per call is the number that carries over.
import { createEnvironment } from "@codecall/backend-local";
import { createTransport } from "@codecall/transport-file";
import { concurrentSleepWall, noopRoundTrips, report, stats } from "./lib.mjs";

const CALLS = 300;
const environment = createEnvironment();
let oneshots = 0;
const executeOneshot = environment.executeOneshot.bind(environment);
environment.executeOneshot = (command, options) => {
  oneshots += 1;
  return executeOneshot(command, options);
};
const transport = createTransport();

// Sequential calls: the next call is written while the host answers the last one, so in steady
// state one poll both answers a call and claims the next.
const before = oneshots;
report("local+file: no-op tool call round trip (sequential)", await noopRoundTrips({ environment, transport, calls: CALLS, warmup: 30 }), "µs");
const perCall = (oneshots - before) / (CALLS + 30);
console.log(
  `${"local+file: executeOneshot calls per sequential tool call".padEnd(58)} ${perCall.toFixed(2)}   (${oneshots - before} for ${CALLS + 30} calls, setup and idle polls included)`,
);

const polls = [];
let runStart = oneshots;
const wall = await concurrentSleepWall({
  environment,
  transport,
  afterRun: () => {
    polls.push(oneshots - runStart);
    runStart = oneshots;
  },
});
report("local+file: 10 concurrent terminal('sleep 0.3') calls, wall time", wall, "ms");
const { median, min, max } = stats(polls);
console.log(
  `${"local+file: executeOneshot calls for that whole run".padEnd(58)} median ${String(median).padStart(6)}   (min ${min}, max ${max}, n=${polls.length})`,
);

await environment.close();
