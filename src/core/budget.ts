/**
 * Budgets (issue 22): a limit per dimension — `tokens` (input + output + cache, as pi reports
 * them), `cost` (USD, from pi's usage cost) and `time` (seconds of wall time) — and the one check
 * of a budget value as a file, settings or request writes it. Plain data shared by the loader, the
 * resolver and the runtime; null in a dimension means no limit.
 */

export const BUDGET_DIMENSIONS = ["tokens", "cost", "time"] as const;
export type BudgetDimension = (typeof BUDGET_DIMENSIONS)[number];

/** A run's limits; null = no limit in that dimension. */
export interface Budget {
	tokens: number | null;
	cost: number | null;
	time: number | null;
}

/** A budget as written: only the dimensions it names. */
export type BudgetValue = Partial<Record<BudgetDimension, number>>;

/** No limit in any dimension. */
export const UNLIMITED: Readonly<Budget> = Object.freeze({ tokens: null, cost: null, time: null });

/** What each dimension accepts, for messages. */
export const BUDGET_EXPECTS: Readonly<Record<BudgetDimension, string>> = {
	tokens: "a whole number of tokens greater than 0",
	cost: "an amount of US dollars greater than 0",
	time: "a number of seconds greater than 0",
};

/** The largest value a dimension takes (a guard against absurd numbers, not a policy). */
const MAX_VALUE = 1e15;

/** Whether `value` is a valid amount for `dimension`. */
export function validBudgetAmount(dimension: BudgetDimension, value: unknown): value is number {
	if (typeof value !== "number" || !Number.isFinite(value) || value <= 0 || value > MAX_VALUE) return false;
	return dimension !== "tokens" || Number.isInteger(value);
}

/** One problem of a written budget: the dimension (or unknown key) and what is wrong. */
export interface BudgetProblem {
	key: string;
	message: string;
}

/**
 * Checks a budget given as a plain object (a request's `budget`, or a mapping already parsed):
 * the valid dimensions, and one problem per unknown key or invalid amount.
 */
export function checkBudgetObject(raw: unknown): { ok: true; value: BudgetValue; problems: BudgetProblem[] } | { ok: false; message: string } {
	if (typeof raw !== "object" || raw === null || Array.isArray(raw)) {
		return { ok: false, message: "expects an object of tokens, cost and time, e.g. { tokens: 200000, cost: 0.5, time: 600 }" };
	}
	const value: BudgetValue = {};
	const problems: BudgetProblem[] = [];
	for (const [key, amount] of Object.entries(raw)) {
		const problem = budgetEntryProblem(key, amount);
		if (problem) problems.push({ key, message: problem });
		else value[key as BudgetDimension] = amount as number;
	}
	return { ok: true, value, problems };
}

/** Why one `key: amount` of a budget is not valid, or null when it is. */
export function budgetEntryProblem(key: string, amount: unknown): string | null {
	const dimension = BUDGET_DIMENSIONS.find((name) => name === key);
	if (!dimension) return `${key} is not a budget dimension (tokens, cost, time)`;
	return validBudgetAmount(dimension, amount) ? null : `${key} expects ${BUDGET_EXPECTS[dimension]}: ${JSON.stringify(amount) ?? String(amount)}`;
}

/** A budget's dimensions as one line: `tokens 5000, cost $0.05, time 600s` (`unlimited` when none). */
export function formatBudget(budget: Partial<Budget>): string {
	const parts = BUDGET_DIMENSIONS.flatMap((dimension) => {
		const amount = budget[dimension];
		return amount === null || amount === undefined ? [] : [formatAmount(dimension, amount)];
	});
	return parts.length === 0 ? "unlimited" : parts.join(", ");
}

/** One amount as shown: `5000 tokens`, `$0.05`, `600s`. */
export function formatAmount(dimension: BudgetDimension, amount: number): string {
	if (dimension === "cost") return `$${Number(amount.toPrecision(6))}`;
	if (dimension === "time") return `${Number(amount.toPrecision(6))}s`;
	return `${amount} tokens`;
}
