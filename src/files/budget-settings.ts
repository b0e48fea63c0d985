/**
 * Settings `budget` (issue 22): `default` (every run's budget unless a request, definition or role
 * names one), `ceiling` (a hard per-run cap) and `session` (all children of one parent session
 * together), each `{ tokens, cost, time }`. Dimensions merge one by one across the settings files.
 * `ceiling` and `session` cap spending, so an untrusted project may only lower them (ADR 0073,
 * ADR 0171); `default` is capped by the ceiling and comes from any settings file.
 */
import { BUDGET_DIMENSIONS, budgetEntryProblem, type BudgetDimension } from "../core/budget.ts";
import type { Pos, RawField, RawValue } from "./raw.ts";
import type { BudgetSettings, SourcedBudget } from "./types.ts";

/** The keys of settings `budget`. */
export const BUDGET_SETTINGS_KEYS = ["default", "ceiling", "session"] as const;

/** What the settings loader lends this module to report problems. */
export interface BudgetSettingsHelpers {
	/** Whether the file may raise `ceiling` and `session`. */
	trusted: boolean;
	bad(val: RawValue, what: string, expects: string): void;
	unknown(field: RawField, known: string[], where: string): void;
	keptNarrower(field: RawField, message: string): void;
	src(pos: Pos): string;
}

export function emptyBudgetSettings(): BudgetSettings {
	return { default: {}, ceiling: {}, session: {} };
}

/** Applies one file's `budget` object to `budget`. */
export function applyBudgetSettings(field: RawField, budget: BudgetSettings, h: BudgetSettingsHelpers): void {
	if (!field.val.fields) return h.bad(field.val, "budget", 'expects an object of default, ceiling and session (e.g. { "ceiling": { "cost": 1 } })');
	for (const part of field.val.fields) {
		const name = BUDGET_SETTINGS_KEYS.find((key) => key === part.key);
		if (!name) {
			h.unknown(part, [...BUDGET_SETTINGS_KEYS], "budget");
			continue;
		}
		if (!part.val.fields) {
			h.bad(part.val, `budget.${name}`, "expects an object of tokens, cost and time");
			continue;
		}
		applyDimensions(`budget.${name}`, part.val.fields, budget[name], { ...h, trusted: h.trusted || name === "default" });
	}
}

function applyDimensions(what: string, fields: RawField[], into: SourcedBudget, h: BudgetSettingsHelpers): void {
	for (const entry of fields) {
		const problem = budgetEntryProblem(entry.key, entry.val.value);
		const dimension = BUDGET_DIMENSIONS.find((name) => name === entry.key) as BudgetDimension | undefined;
		if (!dimension) {
			h.unknown(entry, [...BUDGET_DIMENSIONS], what);
			continue;
		}
		if (problem) {
			h.bad(entry.val, `${what}.${dimension}`, problem.slice(dimension.length + 1));
			continue;
		}
		const amount = entry.val.value as number;
		const earlier = into[dimension];
		if (!h.trusted && earlier !== undefined && amount > earlier.value) {
			h.keptNarrower(entry, `${what}.${dimension} ${amount} in project settings is ignored: the project is not trusted, so it may only lower ${earlier.value} (${earlier.source})`);
			continue;
		}
		into[dimension] = { value: amount, source: h.src(entry.keyPos), column: entry.keyPos.column };
	}
}
