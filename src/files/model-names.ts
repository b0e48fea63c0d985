/**
 * `model` keys checked at `cadre check` (issue 19, ADR 0107): a name matches a known model the way
 * pi's resolver matches one (exact id, `provider/id`, else a part of an id or display name, case
 * ignored); one that matches none is a `model-unknown` warning at the key, with the nearest id or
 * id part as "did you mean". Pure: the known models are handed in (models.json and pi's built-ins).
 */
import type { Diagnostic } from "../core/diagnostics.ts";
import { THINKING_LEVELS } from "../core/values.ts";
import { editDistance } from "./suggest.ts";

/** One model pi knows: its provider, id and display name. */
export interface KnownModel {
	provider: string;
	id: string;
	name?: string;
}

/** A `model` key of a definition: its value and where it is written. */
export interface ModelKey {
	value: string;
	kind: string;
	name: string;
	file: string;
	line: number;
	column: number;
}

/** The model part of a name: `inherit` is none; a `:level` thinking suffix is cut off. */
export function modelPart(written: string): string | null {
	const name = written.trim();
	if (name === "" || name.toLowerCase() === "inherit") return null;
	const colon = name.lastIndexOf(":");
	if (colon > 0 && (THINKING_LEVELS as readonly string[]).includes(name.slice(colon + 1).toLowerCase())) return name.slice(0, colon);
	return name;
}

/** Whether pi's resolver would find `name` among `models` (without checking credentials). */
export function matchesKnownModel(name: string, models: readonly KnownModel[]): boolean {
	const text = name.toLowerCase();
	const slash = text.indexOf("/");
	const provider = slash > 0 ? text.slice(0, slash) : null;
	const rest = slash > 0 ? text.slice(slash + 1) : text;
	return models.some((m) => {
		const id = m.id.toLowerCase();
		if (id === text || `${m.provider.toLowerCase()}/${id}` === text) return true;
		const pool = provider === null ? [text] : m.provider.toLowerCase() === provider ? [rest] : [];
		return pool.some((part) => id.includes(part) || (m.name?.toLowerCase().includes(part) ?? false));
	});
}

/** The nearest id, or part of an id (`sonnet` of `claude-sonnet-4-5`), to `name`; null when none is near. */
function nearest(name: string, models: readonly KnownModel[]): string | null {
	const text = name.toLowerCase();
	let best: { to: string; distance: number } | null = null;
	for (const m of models) {
		for (const candidate of [m.id, ...m.id.split(/[-_.]/)]) {
			if (candidate.length < 3) continue;
			const distance = editDistance(text, candidate.toLowerCase());
			if (best === null || distance < best.distance) best = { to: candidate, distance };
		}
	}
	return best !== null && best.distance <= Math.max(2, Math.floor(text.length / 3)) ? best.to : null;
}

/** A `model-unknown` warning for each key whose model no known model matches. */
export function checkModelNames(keys: readonly ModelKey[], models: readonly KnownModel[]): Diagnostic[] {
	const out: Diagnostic[] = [];
	for (const key of keys) {
		const model = modelPart(key.value);
		if (model === null || matchesKnownModel(model, models)) continue;
		const near = nearest(model, models);
		out.push({
			severity: "warning",
			file: key.file,
			line: key.line,
			column: key.column,
			code: "model-unknown",
			message: `model ${model} of ${key.kind} ${key.name} matches no model pi knows (models.json or pi's built-in models)${near ? ` — did you mean ${near}?` : ""}`,
			hint: "write a model `pi --list-models` shows (provider/id, or a part of its id), or add it to models.json; until then a spawn of this type is refused (model-unresolvable)",
		});
	}
	return out;
}
