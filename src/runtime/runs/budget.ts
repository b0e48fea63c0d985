/**
 * A run's budget as the registry keeps it (issue 22): the child's budget gate's count folded
 * into the record's `budget` — live at every turn's end, for the views, and final at the end.
 */
import type { ChildHandle } from "../pi/child-session.ts";
import type { Internal } from "./state.ts";

/** The gate's count into the run's `budget`. */
export function followBudget(internal: Internal, child: ChildHandle): void {
	const budget = internal.record.budget;
	const seen = child.budget?.();
	if (!budget || !seen) return;
	budget.used = seen.used;
	budget.stoppedBy = seen.stoppedBy;
	budget.warned = seen.warned;
}
