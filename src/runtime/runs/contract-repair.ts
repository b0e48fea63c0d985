/**
 * The contract check of a completed run (ADR 0099): when the persona's outputs or structured
 * result are not kept, the child is steered once (the repair turn) and checked again.
 */
import { checkContract, hasContract, repairMessage } from "../contract.ts";
import type { ChildHandle } from "../pi/child-session.ts";
import type { Internal } from "./state.ts";

/** Why a run whose contract is not kept gets no repair turn, or null when it gets one. */
export function noRepair(internal: Internal): string | null {
	const run = internal.record;
	if (internal.plan.repairContract === false) return "settings contracts.repair is false";
	const maxTurns = run.config.maxTurns;
	if (run.limitReached || (maxTurns !== null && run.turns >= maxTurns)) return `no turns left (max_turns ${maxTurns})`;
	return null;
}

/** Checks a completed run's contract; when it is not kept, steers the child once (the repair turn) and checks again. */
export async function keepContract(internal: Internal, child: ChildHandle): Promise<void> {
	const run = internal.record;
	if (!hasContract(run.config)) return;
	const check = () => checkContract(run.config, { cwd: internal.cwd, answer: child.lastText(), structured: child.structured() });
	const first = check();
	if (first.ok) {
		run.contract = first;
		return;
	}
	const skipped = noRepair(internal);
	if (skipped !== null) {
		run.contract = { ...first, repair: { steered: false, worked: false, skipped } };
		return;
	}
	run.activity = "repair turn";
	await child.run(repairMessage(run.config, first));
	const after = check();
	run.contract = { ...after, repair: { steered: true, worked: after.ok, skipped: null } };
}
