/**
 * The budget ledger (issue 22): what remains of the session's pool and of each run's reservation.
 * A run reserves from its spawning run's remaining (or the session's when it has none), is clamped
 * or refused `budget-exhausted`, and returns what it did not use when it ends. Plain state; the
 * arithmetic is the pure core's (src/resolve/budget.ts).
 */

import type { Budget } from "../core/budget.ts";
import { type BudgetExhausted, type BudgetReservation, releaseBudget, reserveBudget } from "../resolve/budget.ts";

interface Entry {
	parent: string | null;
	reserved: Budget;
	remaining: Budget;
}

/** The ledger of one parent session. */
export interface BudgetLedger {
	/** Reserves `requested` for run `id` from `parentId`'s remaining, else the session pool. */
	reserve(id: string, requested: Budget, parentId?: string): BudgetReservation | BudgetExhausted;
	/** Ends run `id`: what it did not use returns to its parent. */
	release(id: string, used: { tokens: number; cost: number }): void;
	/** What remains to the session (no id) or to a run. */
	remaining(id?: string): Budget;
}

/** A ledger whose session pool is `session` (from `sessionBudget(settings.budget)`). */
export function createBudgetLedger(session: Budget): BudgetLedger {
	let pool: Budget = { ...session };
	const runs = new Map<string, Entry>();
	const remainingOf = (id: string | null | undefined): Budget => (id && runs.has(id) ? runs.get(id)!.remaining : pool);
	const setRemaining = (id: string | null, value: Budget): void => {
		const entry = id ? runs.get(id) : undefined;
		if (entry) entry.remaining = value;
		else pool = value;
	};
	return {
		reserve(id, requested, parentId) {
			const parent = parentId && runs.has(parentId) ? parentId : null;
			const result = reserveBudget(remainingOf(parent), requested);
			if (!result.ok) return result;
			setRemaining(parent, result.remaining);
			runs.set(id, { parent, reserved: result.reserved, remaining: { ...result.reserved } });
			return result;
		},
		release(id, used) {
			const entry = runs.get(id);
			if (!entry) return;
			runs.delete(id);
			setRemaining(entry.parent, releaseBudget(remainingOf(entry.parent), entry.reserved, used));
		},
		remaining: (id) => ({ ...remainingOf(id) }),
	};
}
