/**
 * The seeded plan of the load-and-faults test (test/runtime/faults.test.ts): for each of the
 * children a fault and an action, how the spawns are cut into waves, when the parent is aborted.
 * Drawn with fast-check from a seed, so a failing round is replayed from the seed it prints.
 */
import fc from "fast-check";

/** What goes wrong in a child. */
export const FAULTS = [
	["none", 40],
	/** The model's answer errors mid-stream (partial text, then `stopReason: error`). */
	["model", 10],
	/** `fault_tool` (registered by the child's extension) throws an Error / a string / after a tick. */
	["tool", 4],
	["tool-string", 2],
	["tool-async", 2],
	/** The child's extension throws in this handler. */
	["ext:before_agent_start", 3],
	["ext:turn_start", 3],
	["ext:tool_call", 3],
	["ext:message_end", 3],
	["ext:agent_end", 3],
	/** A `fragile` child: its extension throws in `session_start`. */
	["fragile", 3],
	/** The transcript directory cannot be written from this child's first request for a while. */
	["dir", 2],
] as const;

/** What the test (the user, another extension, the parent model) does to a child. */
export const ACTIONS = [
	["none", 40],
	/** Stopped from the `cadre:created` listener, before the run is even queued. */
	["stop-created", 4],
	["stop-queued", 4],
	/** Stopped while its first model request is held. */
	["stop-running", 7],
	/** Stopped when its agent loop ends, racing the run's own end. */
	["stop-finishing", 6],
	/** Stopped after `delay` more lifecycle events, whatever it is doing then. */
	["stop-random", 6],
	["steer-queued", 6],
	["steer-running", 6],
	["steer-random", 4],
	/** Steered when its session settles (after its last turn, before the run's end). */
	["steer-finishing", 3],
	/** Steered while queued with a command of the child's extension (pi refuses it on delivery). */
	["steer-command", 2],
	/** The parent waits for it with `get_subagent_result` / polls it. */
	["fetch-wait", 6],
	["fetch-poll", 4],
	/** The parent waits for it while it is held, and the user aborts the parent meanwhile. */
	["abort-wait", 3],
] as const;

export type Fault = (typeof FAULTS)[number][0];
export type Action = (typeof ACTIONS)[number][0];

/** What the parent does on a notification turn. */
export const NOTIFICATION_TURNS = ["noted", "noted", "noted", "noted", "fetch", "abort"] as const;

export interface ChildPlan {
	/** `R<n>`: in the child's prompt and the run's description. */
	marker: string;
	fault: Fault;
	action: Action;
	/** `ls` calls before the final answer. */
	steps: number;
	/** For `stop-random` / `steer-random`: how many lifecycle events after its creation. */
	delay: number;
}

export interface Scenario {
	children: ChildPlan[];
	waveSizes: number[];
	/** Per wave: abort the parent at its first spawn call (later calls are skipped), or at its first child created. */
	abortAtSpawn: ("no" | "at-call" | "at-created")[];
	/** What the parent does on its n-th notification turn. */
	notificationTurns: (typeof NOTIFICATION_TURNS)[number][];
}

const weighted = <T extends string>(table: readonly (readonly [T, number])[]) =>
	fc.oneof(...table.map(([value, weight]) => ({ arbitrary: fc.constant(value), weight })));

function scenario(spawns: number): fc.Arbitrary<Scenario> {
	const child = fc.record({
		fault: weighted(FAULTS),
		action: weighted(ACTIONS),
		steps: fc.integer({ min: 0, max: 2 }),
		delay: fc.integer({ min: 1, max: 40 }),
	});
	const list = <T>(arbitrary: fc.Arbitrary<T>, length: number) => fc.array(arbitrary, { minLength: length, maxLength: length });
	return fc.record({
		children: list(child, spawns).map((children) => children.map((c, i) => ({ ...c, marker: `R${i}` }))),
		waveSizes: list(fc.integer({ min: 8, max: 30 }), spawns),
		abortAtSpawn: list(weighted([["no", 8], ["at-call", 1], ["at-created", 1]] as const), spawns),
		notificationTurns: list(fc.constantFrom(...NOTIFICATION_TURNS), 4 * spawns),
	});
}

/** The plan of `spawns` children for `seed`. */
export function planFor(seed: number, spawns: number): Scenario {
	const [drawn] = fc.sample(scenario(spawns), { seed, numRuns: 1 });
	if (!drawn) throw new Error(`no plan for seed ${seed}`);
	return drawn;
}
