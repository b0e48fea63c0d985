/**
 * The budget ledger (issue 22): what remains of the session's pool and of each run's reservation.
 * A run reserves from its spawning run's remaining (or the session's when it has none), is clamped
 * or refused `budget-exhausted`, is charged what it spends as it goes (so its children cannot
 * reserve what it already used), and when it ends what is left of its reservation returns to its
 * parent. Plain state; the arithmetic is the pure core's (src/resolve/budget.ts).
 *
 * In a tree (ADR 0179) a run's reservation pays for its own answers and for what its children
 * hold: its room shrinks as they reserve and grows back as they end; `live` and `released` let a
 * run whose room its children hold wait for them instead of stopping; `lent` says what it lent
 * and what came back.
 */

import type { Budget } from "../core/budget.ts";
import { type BudgetExhausted, type BudgetReservation, releaseBudget, reserveBudget } from "../resolve/budget.ts";

interface Entry {
	parent: string | null;
	reserved: Budget;
	/** What is left: the reservation less what the run spent and what its children hold or spent. */
	remaining: Budget;
	/** What the run itself was charged so far. */
	charged: { tokens: number; cost: number };
	/** What its children reserved from it, and what came back when they ended. */
	lent: Lent;
	/** How many of its children hold a reservation from it now (`live` is asked before every request). */
	holders: number;
}

/** What a run lent its children over its life, and what came back unused. */
export interface Lent {
	reserved: Spent;
	returned: Spent;
}

/** Spending as the ledger counts it. */
export interface Spent {
	tokens: number;
	cost: number;
}

/** The ledger of one parent session. */
export interface BudgetLedger {
	/** Reserves `requested` for run `id` from `parentId`'s remaining, else the session pool. */
	reserve(id: string, requested: Budget, parentId?: string): BudgetReservation | BudgetExhausted;
	/** Run `id` has spent `used` so far (its own totals, not a delta): its remaining goes down by what is new. */
	charge(id: string, used: Spent): void;
	/** Ends run `id` with its totals `used`: what is left of its reservation returns to its parent. */
	release(id: string, used: Spent): void;
	/** What remains to the session (no id) or to a run. */
	remaining(id?: string): Budget;
	/**
	 * What run `id` may spend itself in all: what it spent plus what remains to it (less than its
	 * reservation once its children hold some of it); unlimited dimensions are null.
	 */
	room(id: string): Budget | null;
	/** Whether run `id` has a child that still holds a reservation from it. */
	live(id: string): boolean;
	/** Settles when the next child of run `id` ends (and gives back what it did not use). */
	released(id: string): Promise<void>;
	/** What run `id` lent its children and what came back, or null once it ended (or never reserved). */
	lent(id: string): Lent | null;
}

const nano = (amount: number) => Math.round(amount * 1e9) / 1e9;
const added = (a: Spent, b: Spent): Spent => ({ tokens: a.tokens + b.tokens, cost: nano(a.cost + b.cost) });

const ADDITIVE = ["tokens", "cost"] as const;

/** A ledger whose session pool is `session` (from `sessionBudget(settings.budget)`). */
export function createBudgetLedger(session: Budget): BudgetLedger {
	let pool: Budget = { ...session };
	const runs = new Map<string, Entry>();
	const waiting = new Map<string, (() => void)[]>();
	const wake = (id: string) => {
		const waiters = waiting.get(id);
		waiting.delete(id);
		for (const resolve of waiters ?? []) resolve();
	};
	const remainingOf = (id: string | null | undefined): Budget => (id && runs.has(id) ? runs.get(id)!.remaining : pool);
	const setRemaining = (id: string | null, value: Budget): void => {
		const entry = id ? runs.get(id) : undefined;
		if (entry) entry.remaining = value;
		else pool = value;
	};
	const charge = (entry: Entry, used: Spent): void => {
		const next = { ...entry.remaining };
		for (const dimension of ADDITIVE) {
			const delta = used[dimension] - entry.charged[dimension];
			if (delta <= 0) continue;
			entry.charged[dimension] = used[dimension];
			const left = next[dimension];
			if (left !== null) next[dimension] = dimension === "cost" ? Math.round((left - delta) * 1e9) / 1e9 : left - delta;
		}
		entry.remaining = next;
	};
	return {
		reserve(id, requested, parentId) {
			const parent = parentId && runs.has(parentId) ? parentId : null;
			const result = reserveBudget(remainingOf(parent), requested);
			if (!result.ok) return result;
			setRemaining(parent, result.remaining);
			const lender = parent ? runs.get(parent) : undefined;
			if (lender) {
				lender.lent.reserved = added(lender.lent.reserved, { tokens: result.reserved.tokens ?? 0, cost: result.reserved.cost ?? 0 });
				lender.holders++;
			}
			const lent = { reserved: { tokens: 0, cost: 0 }, returned: { tokens: 0, cost: 0 } };
			runs.set(id, { parent, reserved: result.reserved, remaining: { ...result.reserved }, charged: { tokens: 0, cost: 0 }, lent, holders: 0 });
			return result;
		},
		charge(id, used) {
			const entry = runs.get(id);
			if (entry) charge(entry, used);
		},
		release(id, used) {
			const entry = runs.get(id);
			if (!entry) return;
			charge(entry, used);
			runs.delete(id);
			// Children still running now hold from this run's parent: what they leave goes there.
			const heir = entry.parent ? runs.get(entry.parent) : undefined;
			if (entry.holders > 0) {
				for (const other of runs.values()) if (other.parent === id) other.parent = entry.parent;
				if (heir) heir.holders += entry.holders;
			}
			// What is left (never below nothing: a run that went over by its last answer returns none).
			const left: Spent = { tokens: 0, cost: 0 };
			for (const dimension of ADDITIVE) {
				const held = entry.reserved[dimension];
				const rest = entry.remaining[dimension];
				left[dimension] = held === null || rest === null ? 0 : held - Math.max(0, rest);
			}
			const before = remainingOf(entry.parent);
			const after = releaseBudget(before, entry.reserved, left);
			setRemaining(entry.parent, after);
			const lender = heir;
			if (lender) {
				lender.holders--;
				const back = (dimension: "tokens" | "cost") => (before[dimension] === null || after[dimension] === null ? 0 : (after[dimension] as number) - (before[dimension] as number));
				lender.lent.returned = added(lender.lent.returned, { tokens: back("tokens"), cost: back("cost") });
			}
			if (entry.parent) wake(entry.parent);
		},
		live: (id) => (runs.get(id)?.holders ?? 0) > 0,
		released: (id) => new Promise<void>((resolve) => waiting.set(id, [...(waiting.get(id) ?? []), resolve])),
		lent(id) {
			const entry = runs.get(id);
			return entry ? { reserved: { ...entry.lent.reserved }, returned: { ...entry.lent.returned } } : null;
		},
		remaining: (id) => ({ ...remainingOf(id) }),
		room(id) {
			const entry = runs.get(id);
			if (!entry) return null;
			const room: Budget = { ...entry.reserved };
			for (const dimension of ADDITIVE) {
				const rest = entry.remaining[dimension];
				room[dimension] = rest === null ? null : entry.charged[dimension] + Math.max(0, rest);
			}
			return room;
		},
	};
}
