/**
 * Budget bench (issue 22, ADR 0176): what the check before each model request adds. The gate
 * wraps the agent's stream function and its `finishTurn`; this times a request through the
 * wrapped stream function and a turn's end through the wrapped `finishTurn` — with usage counted
 * from `message_end` events and the run's room asked of a ledger, as in a real session — against a floor measured in the same run: the
 * same calls unwrapped. The bound is 0.05 ms per request.
 *
 * Run: npm run bench:budget [-- --runs 200000]
 */
import type { AgentSession } from "@earendil-works/pi-coding-agent";
import { createBudgetLedger } from "../src/runtime/budget-ledger.ts";
import { checkBudget } from "../src/runtime/budget-meter.ts";
import { installBudgetGate } from "../src/runtime/pi/budget-gate.ts";

const runsArg = process.argv.indexOf("--runs");
const RUNS = runsArg > 0 ? Number(process.argv[runsArg + 1]) : 200_000;
const BOUND_MS = 0.05;

type Listener = (event: { type: string; message?: unknown }) => void;

/** The parts of a session the gate touches; the stream function returns at once (the floor). */
function fakeSession() {
	const listeners = new Set<Listener>();
	const result = { events: [] };
	const agent = {
		streamFunction: (_model: unknown, _context: unknown, _options?: unknown) => result,
		finishTurn: async (_turn: unknown) => undefined,
	};
	const session = {
		agent,
		subscribe(listener: Listener) {
			listeners.add(listener);
			return () => listeners.delete(listener);
		},
		steer: async () => {},
		abort: async () => {},
		emit: (event: { type: string; message?: unknown }) => {
			for (const listener of listeners) listener(event);
		},
	};
	return session;
}

const answer = { type: "message_end", message: { role: "assistant", usage: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, cost: { total: 0 } } } };

/** ms per call of `call`, best of 5 rounds of RUNS calls. */
async function time(call: () => unknown, asyncCall = false): Promise<number> {
	let best = Number.POSITIVE_INFINITY;
	for (let round = 0; round < 5; round++) {
		const start = performance.now();
		if (asyncCall) for (let i = 0; i < RUNS; i++) await call();
		else for (let i = 0; i < RUNS; i++) call();
		best = Math.min(best, (performance.now() - start) / RUNS);
	}
	return best;
}

const bare = fakeSession();
const gated = fakeSession();
const limit = { tokens: 1e15, cost: 1e9, time: 1e9 };
const gate = installBudgetGate(gated as unknown as AgentSession, limit);
// As the registry binds it: the run's room in the ledger of its parent session, asked at every check.
const ledger = createBudgetLedger({ tokens: null, cost: null, time: null });
ledger.reserve("run", limit);
gate.setRoom(() => ledger.room("run"));
gate.start();
const floorRequest = await time(() => bare.agent.streamFunction({}, {}, {}));
const gatedRequest = await time(() => gated.agent.streamFunction({}, {}, {}));
const floorTurn = await time(() => bare.agent.finishTurn({}), true);
const gatedTurn = await time(() => {
	gated.emit(answer);
	return gated.agent.finishTurn({});
}, true);
const pure = await time(() => checkBudget({ tokens: 5000, cost: 0.05, time: 600 }, { tokens: 1234, cost: 0.01, time: 3 }, { tokens: 10, cost: 0 }));
gate.dispose();

const addedRequest = gatedRequest - floorRequest;
const addedTurn = gatedTurn - floorTurn;
const rows: [string, number][] = [
	["request, no check (floor)", floorRequest],
	["request through the gate", gatedRequest],
	["  added per request", addedRequest],
	["turn end, no check (floor)", floorTurn],
	["turn end through the gate (+ message_end count)", gatedTurn],
	["  added per turn", addedTurn],
	["checkBudget alone", pure],
];
console.log(`budget gate, ${RUNS} calls × best of 5`);
for (const [name, value] of rows) console.log(`${name.padEnd(50)} ${(value * 1000).toFixed(3).padStart(8)} µs`);
const worst = Math.max(addedRequest, addedTurn);
console.log(`added before a request: ${(worst * 1000).toFixed(3)} µs (bound ${BOUND_MS * 1000} µs): ${worst <= BOUND_MS ? "within" : "OVER"} the bound; ${(worst / BOUND_MS).toFixed(4)}× of it`);
if (worst > BOUND_MS) process.exitCode = 1;
