/**
 * A run's budget as the registry keeps it (issue 22): the child's budget gate's count folded
 * into the record's `budget` — live at every turn's end, for the views, and final at the end.
 */
import type { ChildHandle } from "../pi/child-session.ts";
import type { Internal, RegistryState } from "./state.ts";
import { whileWaiting } from "./tree.ts";

/**
 * The gate's count into the run's `budget`, and into the ledger (the run's remaining goes down by
 * what it spent, so the children it spawns cannot reserve it).
 */
export function followBudget(registry: RegistryState, internal: Internal, child: ChildHandle): void {
	const budget = internal.record.budget;
	const seen = child.budget?.();
	if (!budget || !seen) return;
	budget.used = seen.used;
	budget.stoppedBy = seen.stoppedBy;
	budget.warned = seen.warned;
	if (internal.reserved) registry.ledger.charge(internal.record.id, { tokens: seen.used.tokens, cost: seen.used.cost });
}

/**
 * Holds the child to what its reservation still has room for: its own spending plus what its
 * children hold or spent must stay within it (a tree never spends more than its root's budget);
 * when only its live children hold the rest, it waits for them (ADR 0179).
 */
export function bindBudgetRoom(registry: RegistryState, internal: Internal, child: ChildHandle): void {
	if (!internal.reserved) return;
	const id = internal.record.id;
	child.budgetRoom?.(() => registry.ledger.room(id), {
		live: () => registry.ledger.live(id),
		// A run waiting for its children to give budget back holds no slot meanwhile (ADR 0173, 0179).
		released: () => whileWaiting(registry, id, () => registry.ledger.released(id)),
	});
}
