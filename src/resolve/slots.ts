/**
 * The precedence machinery (spec 02 "The trace"): one layer's say on a field is a slot; a field's
 * winner is the first named slot in the field's `ORDER`, and every other slot becomes a candidate
 * with its outcome. Also the small value helpers every resolution step shares.
 */
import type { Rejected, Sourced } from "../files/types.ts";
import type { Candidate, Layer, TraceEntry } from "./types.ts";

/** One layer's say on one field, before the winner is chosen. */
export interface Slot {
	layer: Layer;
	state: "named" | "not-named" | "invalid" | "unresolvable";
	value: unknown;
	source: string | null;
}

export const NOT_NAMED = (layer: Layer): Slot => ({ layer, state: "not-named", value: null, source: null });

/** The slot of a key loaded from a file or settings: valid → named, rejected → invalid. */
export function loadedSlot<T>(layer: Layer, named: Sourced<T> | undefined, rejected: Rejected | undefined): Slot {
	if (named) return { layer, state: "named", value: named.value, source: named.source };
	if (rejected) return { layer, state: "invalid", value: rejected.raw, source: rejected.source };
	return NOT_NAMED(layer);
}

/** Chooses the first named slot and reports the others as candidates. */
function pick(slots: Slot[]): TraceEntry {
	const winner = slots.findIndex((slot) => slot.state === "named");
	if (winner < 0) {
		const candidates = slots.filter((slot) => slot.state !== "not-named").map(toCandidate(false));
		return { value: null, layer: "default", source: "default", candidates };
	}
	const won = slots[winner] as Slot;
	const candidates = slots.flatMap((slot, i) => (i === winner ? [] : [toCandidate(i > winner)(slot)]));
	return { value: won.value, layer: won.layer, source: won.source ?? "default", candidates };
}

/** Picks a field's winner with its layers put in the field's `ORDER`; a missing layer is not named. */
export function pickIn(order: readonly Layer[], slots: Partial<Record<Layer, Slot>>): TraceEntry {
	return pick(order.map((layer) => slots[layer] ?? NOT_NAMED(layer)));
}

/** A slot as a trace candidate; `below` the winner, a named slot was overridden. */
export function toCandidate(below: boolean): (slot: Slot) => Candidate {
	return (slot) => {
		if (slot.state === "not-named") return { layer: slot.layer, value: null, source: null, outcome: "not-named" };
		if (slot.state === "named") return { layer: slot.layer, value: slot.value, source: slot.source, outcome: below ? "overridden" : "not-named" };
		return { layer: slot.layer, value: slot.value, source: slot.source, outcome: slot.state };
	};
}

/** A trace entry for a derived field (no candidates). */
export function derived(value: unknown, layer: Layer, source: string): TraceEntry {
	return { value, layer, source, candidates: [] };
}

export const NOTHING: TraceEntry = { value: null, layer: "default", source: "default", candidates: [] };

/** `path:line` / `settings:path:line` → the diagnostic position (column unknown: null). */
export function positionOf(source: string | null): { file: string | null; line: number | null; column: number | null } {
	if (source === null || source === "bundled" || source === "request" || source === "parent" || source === "default") {
		return { file: null, line: null, column: null };
	}
	const bare = source.startsWith("settings:") ? source.slice("settings:".length) : source;
	const match = /^(.*):(\d+)$/.exec(bare);
	if (!match) return { file: bare, line: null, column: null };
	return { file: match[1] ?? bare, line: Number(match[2]), column: null };
}

/** Whether a request key is present (null and undefined both mean "not named"). */
export function present(value: unknown): boolean {
	return value !== undefined && value !== null;
}

/** A value as a diagnostic quotes it. */
export function show(value: unknown): string {
	return typeof value === "string" ? `"${value}"` : JSON.stringify(value) ?? String(value);
}
