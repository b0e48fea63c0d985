/**
 * A run's budget while it runs (issue 22, ADR 0176): what it has used against the limit it
 * reserved, the one check made before each model request (used + in flight against the limit),
 * the wrap-up warning at 80% and the `budget` a result, record, event and notification carry.
 * Pure data and arithmetic: the pi adapter (runtime/pi/budget-gate.ts) feeds it usage and acts on
 * its answers.
 */
import { BUDGET_DIMENSIONS, type Budget, type BudgetDimension } from "../core/budget.ts";

/** What a run has spent: tokens (input + output + cache), cost (USD), time (seconds since it started). */
export interface BudgetUsed {
	tokens: number;
	cost: number;
	time: number;
}

/** A run's budget as the result, the record, events and notifications carry it. */
export interface RunBudget {
	/** The limits resolution gave the run (`config.budget`: request, role, definition, default; capped). */
	limit: Budget;
	/** What it reserved from its parent's or the session's remaining: the limits it is held to. */
	reserved: Budget;
	/** What it has used so far. */
	used: BudgetUsed;
	/** Where the limit came from (the trace's budget source), e.g. `request` or a settings file. */
	source: string;
	/** The dimensions where it asked for more than remained (clamped to what remained). */
	clamped: BudgetDimension[];
	/** The dimension whose limit stopped the run, or null. */
	stoppedBy: BudgetDimension | null;
	/** The wrap-up steer went out (at 80% of a limit). */
	warned: boolean;
	/** What it reserved for its own children and what came back when they ended (ADR 0179); absent when it lent nothing. */
	children?: { reserved: { tokens: number; cost: number }; returned: { tokens: number; cost: number } };
}

/** The share of a limit at which the child is told to wrap up. */
export const WARN_AT = 0.8 - 1e-9;

/** Shares compare with this slack, so $0.02 + $0.02 of $0.05 (0.7999…) counts as 80%. */
const FULL = 1 - 1e-9;

/** Whether a budget has any limit at all (else no gate is installed). */
export function limited(budget: Budget | null | undefined): budget is Budget {
	return !!budget && BUDGET_DIMENSIONS.some((dimension) => budget[dimension] !== null);
}

/** What the check before a request answers. */
export interface BudgetCheck {
	/** The highest share of a limit used (with what is in flight), 0 when nothing is limited. */
	share: number;
	/** The first dimension whose limit is reached (used + in flight ≥ limit): make no request. */
	over: BudgetDimension | null;
}

/**
 * The check before each model request: `used + inFlight` against `limit` for tokens and cost,
 * and the elapsed time against the time limit. Allocation-free on purpose (it runs per request; the
 * bench holds it to ≤ 0.05 ms).
 */
export function checkBudget(limit: Budget, used: BudgetUsed, inFlight: { tokens: number; cost: number } = NOTHING): BudgetCheck {
	let share = 0;
	let over: BudgetDimension | null = null;
	if (limit.tokens !== null) {
		const s = (used.tokens + inFlight.tokens) / limit.tokens;
		if (s > share) share = s;
		if (s >= FULL && over === null) over = "tokens";
	}
	if (limit.cost !== null) {
		const s = (used.cost + inFlight.cost) / limit.cost;
		if (s > share) share = s;
		if (s >= FULL && over === null) over = "cost";
	}
	if (limit.time !== null) {
		const s = used.time / limit.time;
		if (s > share) share = s;
		if (s >= FULL && over === null) over = "time";
	}
	return { share, over };
}

const NOTHING = Object.freeze({ tokens: 0, cost: 0 });

/** The one wrap-up steer: `N% of your budget is used; wrap up`. */
export function wrapUpMessage(share: number): string {
	const percent = Math.min(99, Math.floor(share * 100));
	return `[cadre] ${percent}% of your budget is used; wrap up: finish what you are doing and give your final answer now.`;
}

/** Why a run the budget stopped ended, for its `error`. */
export function budgetStopMessage(dimension: BudgetDimension, budget: RunBudget): string {
	const limit = budget.reserved[dimension];
	const what = dimension === "cost" ? `$${limit}` : dimension === "time" ? `${limit}s` : `${limit} tokens`;
	return `stopped: its ${dimension} budget (${what}) is spent; the result is its last answer`;
}

/** One dimension's used/limit: `5200/5000 tokens`, `$0.012/$0.05`, `12s/600s`. */
function usedOf(dimension: BudgetDimension, used: number, limit: number): string {
	if (dimension === "cost") return `$${Number(used.toFixed(4))}/$${Number(limit.toPrecision(6))}`;
	if (dimension === "time") return `${Math.round(used)}s/${Number(limit.toPrecision(6))}s`;
	return `${Math.round(used)}/${limit} tokens`;
}

/** The limited dimensions as used/limit, e.g. `5200/5000 tokens, $0.012/$0.05` (the TUI row, `cadre run`'s end line). */
export function budgetUsage(budget: RunBudget): string {
	return BUDGET_DIMENSIONS.filter((dimension) => budget.reserved[dimension] !== null)
		.map((dimension) => usedOf(dimension, budget.used[dimension], budget.reserved[dimension] as number))
		.join(", ");
}

/** Tokens and cost in the dimensions the budget limits: `$0.05`, `3000 tokens, $0.05`. */
function lentOf(amount: { tokens: number; cost: number }, budget: RunBudget): string {
	const parts: string[] = [];
	if (budget.reserved.tokens !== null) parts.push(`${Math.round(amount.tokens)} tokens`);
	if (budget.reserved.cost !== null) parts.push(`$${Number(amount.cost.toFixed(4))}`);
	return parts.join(", ") || "nothing";
}

/** The result's and notification's budget line: used/limit, its source, a clamp, what stopped it. */
export function budgetLine(budget: RunBudget): string {
	const notes = [`from ${budget.source}`];
	if (budget.clamped.length > 0) notes.push(`clamped to what remained: ${budget.clamped.join(", ")}`);
	if (budget.warned) notes.push("told to wrap up at 80%");
	if (budget.stoppedBy) notes.push(`stopped by its ${budget.stoppedBy} limit`);
	if (budget.children) notes.push(`its children reserved ${lentOf(budget.children.reserved, budget)}, ${lentOf(budget.children.returned, budget)} came back unused`);
	return `Budget: ${budgetUsage(budget) || "unlimited"} (${notes.join("; ")}).`;
}
