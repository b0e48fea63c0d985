/**
 * Runs (spec 04 "Runs"): one record per spawned child, its states (queued → running → completed |
 * failed | aborted | stopped), the FIFO limiter for background runs, stop/steer/wait, the turn
 * ceiling, lifecycle events and the isolation hooks around every run, and when its record is
 * saved (ADR 0068). Host-neutral: the child session comes from the plan's `createChild`, events go
 * to the injected `emit`, records to the injected `save`; earlier sessions' runs come in as plain
 * records.
 *
 * This file wires the registry's parts (ADR 0110), each a set of functions over one plain
 * {@link RegistryState} in src/runtime/runs/: types.ts (the public data), state.ts (the state,
 * ids), spawn.ts (creation, queue), execute.ts (a started run), contract-repair.ts, finish.ts (the
 * end), control.ts (stop, steer, wait), persistence.ts (record writes), events.ts, tree.ts (nested runs,
 * issue 21).
 */
import type { ChildMessage } from "./pi/conversation.ts";
import { stopAllRuns, stopRun, steerRun, waitForRun } from "./runs/control.ts";
import { spawnRun } from "./runs/spawn.ts";
import { createRegistryState, type RegistryState } from "./runs/state.ts";
import { childrenOf, whileWaiting } from "./runs/tree.ts";
import type { RunRecord, RunRegistry, RunRegistryOptions } from "./runs/types.ts";

export { eventPayload, type RunEventPayload, type SteeredEventPayload } from "./runs/events.ts";
export { chainRoot, newRunId, noIsolation } from "./runs/state.ts";
export type {
	IsolationHooks,
	IsolationReport,
	LifecycleEvent,
	ProgressListener,
	RecordWriter,
	RunRecord,
	RunRegistry,
	RunRegistryOptions,
	RunState,
	SpawnPlan,
	TerminalState,
} from "./runs/types.ts";

/** Create the run registry of one parent session. */
export function createRunRegistry(options: RunRegistryOptions): RunRegistry {
	const state: RegistryState = createRegistryState(options);
	const own = (): RunRecord[] => [...state.runs.values()].map((internal) => internal.record);
	return {
		spawn: (plan, spawnOptions) => spawnRun(state, plan, spawnOptions),
		get: (id) => state.runs.get(id)?.record ?? state.earlier.get(id),
		list: () => [...state.earlier.values(), ...own()],
		conversation: (id): ChildMessage[] | null => state.runs.get(id)?.child?.messages() ?? null,
		own,
		stop: (id) => stopRun(state, id),
		steer: (id, message) => steerRun(state, id, message),
		wait: (id, timeoutMs, signal) => waitForRun(state, id, timeoutMs, signal),
		stopAll: () => stopAllRuns(state),
		setMaxConcurrent: (max) => state.limiter.setMax(max),
		whileWaiting: (id, wait) => whileWaiting(state, id, wait),
		children: (id) => childrenOf(state, id).map((internal) => internal.record),
		budgetRemaining: (id) => state.ledger.remaining(id),
	};
}
