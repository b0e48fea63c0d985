/**
 * The explain report's nesting and budget parts (issues 21, 22): the spawning chain under the
 * header, the cap a field's winner got (`capped by parent lead (asked all)`), the delegation cell,
 * and one line per budget dimension with its source and what capped it. Pure text; the caller
 * passes the report through `safeFields` first.
 */
import { BUDGET_DIMENSIONS, type BudgetDimension, formatAmount, formatBudget } from "../core/budget.ts";
import { showValue } from "../files/keys.ts";
import type { ChainLink } from "./nested.ts";
import type { Delegation, TraceEntry } from "./types.ts";

/** A cap as the `beat` column shows it. */
export function capText(entry: TraceEntry): string {
	const cap = entry.capped;
	if (!cap) return "";
	return `capped by ${cap.source.startsWith("parent ") ? cap.source : `${cap.by} ${cap.source}`} (asked ${askedText(cap.asked)})`;
}

function askedText(asked: unknown): string {
	if (asked === null || asked === undefined) return "none";
	if (Array.isArray(asked)) return asked.length === 0 ? "no tools" : asked.join(", ");
	return typeof asked === "string" ? asked : showValue(asked);
}

/** `may spawn explore, worker` / `may spawn every type` / `no: <why>`. */
export function delegationCell(delegation: Delegation): string {
	if (!delegation.allowed) return `no: ${delegation.reason ?? "not allowed"}`;
	if (delegation.subagents === "*") return "may spawn every enabled type";
	return delegation.subagents.length === 0 ? "may spawn no type" : `may spawn ${delegation.subagents.join(", ")}`;
}

/** The chain under the header: `spawned by lead (depth 1: read-only; read, grep, subagent, …)`. */
export function parentLines(links: readonly ChainLink[]): string[] {
	if (links.length === 0) return [];
	return links.map((link, i) => {
		const what = link.refused ? `refused ${link.refused.code}` : [link.capabilityMode ?? "no capability filter", link.tools.length > 0 ? link.tools.join(", ") : "no tools", link.isolation === "worktree" ? "worktree" : null, link.budget && formatBudget(link.budget) !== "unlimited" ? `budget ${formatBudget(link.budget)}` : null].filter((part) => part !== null).join("; ");
		return `${i === 0 ? "spawned by" : "     under"} ${link.type} (depth ${link.depth}: ${what})`;
	});
}

/** One line per budget dimension that has a limit or was named: amount, from, cap, beat. */
export function budgetLines(
	dimensions: Record<BudgetDimension, TraceEntry>,
	columns: (entry: TraceEntry) => string[],
	table: (rows: string[][]) => string,
): string[] {
	const rows = BUDGET_DIMENSIONS.flatMap((dimension) => {
		const entry = dimensions[dimension];
		if (!entry || (entry.value === null && entry.candidates.every((candidate) => candidate.outcome === "not-named"))) return [];
		const amount = entry.value === null ? "unlimited" : formatAmount(dimension, entry.value as number);
		const [from, cap, beat] = columns(entry);
		return [[dimension, amount, entry.value === null ? "" : (from ?? ""), [cap, beat].filter((part) => part !== undefined && part !== "").join("; ")]];
	});
	if (rows.length === 0) return [];
	return ["", "budget:", ...table(rows).split("\n").map((line) => `  ${line}`)];
}
