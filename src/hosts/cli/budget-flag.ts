/**
 * `cadre run --budget tokens=…,cost=…,time=…` (docs/cli-run.md): the flag's text as a budget —
 * for one run its request `budget`, for a `--batch` the pool every item reserves from.
 */
import { BUDGET_DIMENSIONS, type BudgetDimension, budgetEntryProblem, type BudgetValue } from "../../core/budget.ts";
import { UsageError } from "./io.ts";

/** `tokens=5000,cost=0.05,time=600` → `{ tokens: 5000, cost: 0.05, time: 600 }`; a bad part is a usage error. */
export function parseBudgetFlag(text: string): BudgetValue {
	const budget: BudgetValue = {};
	const parts = text.split(",").map((part) => part.trim()).filter((part) => part !== "");
	if (parts.length === 0) throw new UsageError(`--budget "${text}" names no limit: give tokens=N, cost=USD or time=SECONDS, comma-separated`);
	for (const part of parts) {
		const eq = part.indexOf("=");
		const key = (eq < 0 ? part : part.slice(0, eq)).trim();
		const raw = eq < 0 ? "" : part.slice(eq + 1).trim();
		// Not a number: checked as the text it is, so the message quotes what was written.
		const amount: unknown = raw !== "" && Number.isFinite(Number(raw)) ? Number(raw) : raw;
		const problem = budgetEntryProblem(key, amount);
		if (problem) throw new UsageError(`--budget ${part}: ${eq < 0 ? `${key} needs a value (${key}=…)` : problem}`);
		if (key in budget) throw new UsageError(`--budget names ${key} twice`);
		budget[key as BudgetDimension] = amount as number;
	}
	return budget;
}

/** Every dimension a budget names (for messages). */
export const budgetKeys = (budget: BudgetValue): BudgetDimension[] => BUDGET_DIMENSIONS.filter((dimension) => budget[dimension] !== undefined);
