/**
 * What the registry tells the host: lifecycle events on pi's event bus with by-value payloads
 * (docs/runtime.md "Events"), and the change callback live displays follow. A host callback that
 * throws never breaks a run.
 */
import type { EffectiveConfig } from "../../resolve/types.ts";
import type { RunBudget } from "../budget-meter.ts";
import type { Contract } from "../contract.ts";
import type { Receipt } from "../receipt.ts";
import type { ChildUsage } from "../pi/child-session.ts";
import type { RegistryState } from "./state.ts";
import type { RunRecord, RunState } from "./types.ts";

/** What every lifecycle event carries (docs/runtime.md "Events"): a copy, never the live record. */
export type RunEventPayload = {
	id: string;
	type: string;
	description: string;
	status: RunState;
	background: boolean;
	model: EffectiveConfig["model"];
	capabilityMode: EffectiveConfig["capabilityMode"];
	persona: EffectiveConfig["persona"];
	tools: string[];
	/** The persona contract's outcome once the run ended (null before, or without a contract). */
	contract: Contract | null;
	/** The receipt once the run ended (issue 23); null before. */
	receipt: Receipt | null;
	turns: number;
	toolUses: number;
	usage: ChildUsage;
	transcript: string | null;
	error: string | null;
	resumeOf: string | null;
	/** The run that spawned it (issue 21), or null for a child of the root session. */
	parentId: string | null;
	/** 1 for a child of the root session, 2 for its children, … */
	depth: number;
	/** The run's budget (issue 22), or null without one. */
	budget: RunBudget | null;
	/** `budget` when the budget stopped the run, else null. */
	stopReason: "budget" | null;
};

/** `cadre:steered` adds the message and whether it waits for the child to start. */
export type SteeredEventPayload = RunEventPayload & { message: string; buffered: boolean };

/** A by-value payload for lifecycle events: a fresh copy of what an event says of `run` (the one copy: hosts hand it to listeners as it is). */
export function eventPayload(run: RunRecord): RunEventPayload {
	return {
		id: run.id,
		type: run.type,
		description: run.description,
		status: run.state,
		background: run.background,
		model: run.config.model,
		capabilityMode: run.config.capabilityMode,
		persona: run.config.persona,
		tools: [...run.config.tools],
		contract: run.contract === null ? null : structuredClone(run.contract),
		receipt: run.receipt ? structuredClone(run.receipt) : null,
		turns: run.turns,
		toolUses: run.toolUses,
		usage: { ...run.usage },
		transcript: run.transcript,
		error: run.error,
		resumeOf: run.resumeOf,
		parentId: run.parentId ?? null,
		depth: run.depth ?? 1,
		budget: run.budget ? structuredClone(run.budget) : null,
		stopReason: run.stopReason ?? null,
	};
}

/** Runs a host callback; what it throws is its own problem, never the run's. */
export function quietly(callback: () => void): void {
	try {
		callback();
	} catch {
		// see the doc comment
	}
}

/** Tells the host's live displays the run changed: a display must never break a run. */
export function changed(state: RegistryState, run: RunRecord): void {
	quietly(() => state.options.onChange?.(run));
}
