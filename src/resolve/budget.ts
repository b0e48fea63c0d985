/**
 * Budgets (issue 22): the resolution step — each dimension picked by `ORDER.budget` (request > role
 * > definition > settings `budget.default`), then capped by settings `budget.ceiling` and, for a
 * nested spawn, by the spawning run's budget, the cap named in the trace — and the pure
 * reservation arithmetic the runtime runs when a run starts and ends.
 */
import { BUDGET_DIMENSIONS, type Budget, type BudgetDimension, checkBudgetObject, formatAmount, UNLIMITED } from "../core/budget.ts";
import type { BudgetSettings, Sourced } from "../files/types.ts";
import type { ResolutionContext } from "./context.ts";
import { ORDER } from "./order.ts";
import { NOT_NAMED, pickIn, present, show, type Slot } from "./slots.ts";
import type { Cap, Refusal, TraceEntry } from "./types.ts";

/** The request's `budget` as slots per dimension; an invalid one is refused (`bad-request`). */
function requestSlots(ctx: ResolutionContext): Partial<Record<BudgetDimension, Slot>> | null {
	const raw = ctx.request.budget;
	if (!present(raw)) return {};
	const checked = checkBudgetObject(raw);
	if (!checked.ok || checked.problems.length > 0) {
		const why = checked.ok ? checked.problems.map((p) => p.message).join("; ") : checked.message;
		ctx.badRequest("budget", "budget", raw, `{ tokens?, cost?, time? } with amounts greater than 0 (${why})`);
		return null;
	}
	const slots: Partial<Record<BudgetDimension, Slot>> = {};
	for (const [dimension, value] of Object.entries(checked.value)) slots[dimension as BudgetDimension] = { layer: "request", state: "named", value, source: "request" };
	return slots;
}

/** A budget a role or definition wrote that cannot be read refuses the spawn: it never runs unbounded. */
function refuseUnread(ctx: ResolutionContext): void {
	for (const entry of [ctx.role, ctx.definition]) {
		const rejected = entry?.invalid.budget;
		if (!rejected) continue;
		ctx.refusals.add(
			"restriction-unread",
			`budget ${show(rejected.raw)} of the ${entry.kind} "${entry.name}" (${rejected.source}) cannot be read, so cadre cannot honour the limit it asks for; fix it (tokens, cost, time, each greater than 0) rather than run the child without it`,
		);
	}
}

/** The lowest of the caps on one dimension that would lower `value` (the ceiling on a tie). */
function capOf(value: number | null, ceiling: Sourced<number> | undefined, parent: { type: string; amount: number | null } | null): { limit: number; cap: Cap } | null {
	const caps: { limit: number; cap: Cap }[] = [];
	if (ceiling) caps.push({ limit: ceiling.value, cap: { by: "ceiling", source: ceiling.source, asked: value } });
	if (parent && parent.amount !== null) caps.push({ limit: parent.amount, cap: { by: "parent", source: `parent ${parent.type}`, asked: value } });
	const lowest = caps.reduce<{ limit: number; cap: Cap } | null>((best, next) => (best === null || next.limit < best.limit ? next : best), null);
	return lowest !== null && (value === null || lowest.limit < value) ? lowest : null;
}

/** The budget trace: the effective limits, each dimension's pick and cap under `dimensions`. */
export function resolveBudget(ctx: ResolutionContext): TraceEntry {
	const { role, definition } = ctx;
	const settings = ctx.input.loaded.settings.budget;
	const spawner = ctx.input.spawner ?? null;
	refuseUnread(ctx);
	const request = requestSlots(ctx);
	const value: Budget = { ...UNLIMITED };
	const dimensions = {} as Record<BudgetDimension, TraceEntry>;
	for (const dimension of BUDGET_DIMENSIONS) {
		const named = (layer: "role" | "definition", amount: number | undefined, source: string | undefined): Slot =>
			amount === undefined ? NOT_NAMED(layer) : { layer, state: "named", value: amount, source: source ?? null };
		const fallback = settings.default[dimension];
		let entry = pickIn(ORDER.budget, {
			request: request === null ? { layer: "request", state: "invalid", value: ctx.request.budget, source: "request" } : (request[dimension] ?? NOT_NAMED("request")),
			role: named("role", role?.keys.budget?.value[dimension], role?.keys.budget?.source),
			definition: named("definition", definition.keys.budget?.value[dimension], definition.keys.budget?.source),
			default: fallback ? { layer: "default", state: "named", value: fallback.value, source: fallback.source } : NOT_NAMED("default"),
		});
		const asked = entry.value as number | null;
		const capped = capOf(asked, settings.ceiling[dimension], spawner ? { type: spawner.type, amount: spawner.budget[dimension] } : null);
		if (capped) {
			const unnamed = asked === null ? { layer: capped.cap.by === "parent" ? ("parent" as const) : ("default" as const), source: capped.cap.source } : {};
			entry = { ...entry, ...unnamed, value: capped.limit, capped: capped.cap };
		}
		dimensions[dimension] = entry;
		value[dimension] = entry.value as number | null;
	}
	const first = BUDGET_DIMENSIONS.map((dimension) => dimensions[dimension]).find((entry) => entry.value !== null);
	return { value, layer: first?.layer ?? "default", source: first?.source ?? "default", candidates: [], dimensions };
}

/** Settings `budget.session` as limits: what all children of one parent session may spend together. */
export function sessionBudget(settings: BudgetSettings): Budget {
	const budget: Budget = { ...UNLIMITED };
	for (const dimension of BUDGET_DIMENSIONS) budget[dimension] = settings.session[dimension]?.value ?? null;
	return budget;
}

/** A run's budget taken from its parent's remaining when it starts. */
export interface BudgetReservation {
	ok: true;
	/** The run's limits: what it asked, clamped to what remained; a dimension it left open takes what remained. */
	reserved: Budget;
	/** The dimensions where it asked for more than remained (reported in the result and explain). */
	clamped: BudgetDimension[];
	/** The parent's remaining after the reservation (time is a deadline: never reduced). */
	remaining: Budget;
}

/** Nothing remained in a dimension the parent limits: the spawn is refused. */
export interface BudgetExhausted {
	ok: false;
	refusal: Refusal & { code: "budget-exhausted" };
	exhausted: BudgetDimension[];
}

/** Cost in whole nano-dollars, so reserving and releasing never drift by float error. */
function exact(dimension: BudgetDimension, amount: number): number {
	return dimension === "cost" ? Math.round(amount * 1e9) / 1e9 : amount;
}

/** Additive dimensions come off the parent's remaining; `time` is a deadline each child shares. */
const ADDITIVE: readonly BudgetDimension[] = ["tokens", "cost"];

/**
 * Reserves `requested` (the run's effective `config.budget`) from `remaining` (the spawning run's
 * remaining, else the session's; null dimensions are unlimited). Pure: the caller stores the new
 * remaining and later calls `releaseBudget`.
 */
export function reserveBudget(remaining: Budget, requested: Budget): BudgetReservation | BudgetExhausted {
	const exhausted = BUDGET_DIMENSIONS.filter((dimension) => remaining[dimension] !== null && (remaining[dimension] as number) <= 0);
	if (exhausted.length > 0) {
		const what = exhausted.map((dimension) => `${dimension} (${formatAmount(dimension, Math.max(0, remaining[dimension] as number))} left)`).join(", ");
		return { ok: false, exhausted, refusal: { code: "budget-exhausted", message: `no budget remains for another run: ${what}; wait for running children to finish, or raise the budget of the run that spawns` } };
	}
	const reserved: Budget = { ...UNLIMITED };
	const after: Budget = { ...remaining };
	const clamped: BudgetDimension[] = [];
	for (const dimension of BUDGET_DIMENSIONS) {
		const left = remaining[dimension];
		const asked = requested[dimension];
		if (left === null) {
			reserved[dimension] = asked;
			continue;
		}
		if (asked !== null && asked > left) clamped.push(dimension);
		reserved[dimension] = asked === null ? left : Math.min(asked, left);
		if (ADDITIVE.includes(dimension)) after[dimension] = exact(dimension, left - (reserved[dimension] as number));
	}
	return { ok: true, reserved, clamped, remaining: after };
}

/**
 * What a run gives back when it ends: the part of its reservation it did not use returns to the
 * parent's `remaining` (a run that went over by its last response returns nothing).
 */
export function releaseBudget(remaining: Budget, reserved: Budget, used: { tokens: number; cost: number }): Budget {
	const after: Budget = { ...remaining };
	for (const dimension of ADDITIVE) {
		const left = remaining[dimension];
		const held = reserved[dimension];
		if (left === null || held === null) continue;
		after[dimension] = exact(dimension, left + Math.max(0, held - used[dimension as "tokens" | "cost"]));
	}
	return after;
}
