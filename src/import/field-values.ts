/**
 * The values of cadre's own keys as other tools write them (ADR 0094): tool allowlists in other
 * tools' names, model aliases resolved through pi, thinking levels, `isolation: off`, turn limits.
 * Each reader says what cadre writes and whether that is the same, an approximation, or nothing.
 */
import { isInherit, normalizeCapability, normalizeIsolation, normalizeThinking, THINKING_LEVELS } from "../core/values.ts";
import { foreignToolName, KEPT_WHY, nameList } from "../files/foreign-keys.ts";
import type { FieldOutcome } from "./report.ts";

/** What cadre writes for one value: `value` undefined writes nothing. */
export interface ValueReading {
	outcome: FieldOutcome;
	value?: unknown;
	why: string | null;
	fix: string | null;
}

export const same = (value: unknown): ValueReading => ({ outcome: "mapped", value, why: null, fix: null });
export const near = (value: unknown, why: string, fix: string | null = null): ValueReading => ({ outcome: "approximated", value, why, fix });
export const none = (why: string, fix: string): ValueReading => ({ outcome: "dropped", why, fix });
/** Mapped to nothing: cadre's default says the same. */
const byDefault = (why: string): ValueReading => ({ outcome: "mapped", why, fix: null });

/** How pi resolved a model name (null: pi's packages are not installed, so nothing was asked). */
export type ModelAnswer = { ok: true; id: string } | { ok: false; message: string };
export type ModelResolver = ((name: string) => ModelAnswer) | null;

export function textValue(value: unknown): ValueReading {
	if (typeof value === "string") return value.trim() === "" ? byDefault("it is empty") : same(value.trim());
	if (typeof value === "number") return same(String(value));
	return none("it is not text", "write it as text");
}

export function booleanValue(value: unknown): ValueReading {
	return typeof value === "boolean" ? same(value) : none(`${JSON.stringify(value)} is not true or false`, "write true or false");
}

/** One sentence for the names kept although pi has none of them (a long MCP list is one line, ADR 0105). */
function keptNote(names: readonly string[]): string {
	const shown = names.slice(0, 5).join(", ") + (names.length > 5 ? ` and ${names.length - 5} more` : "");
	return names.length === 1 ? `${shown} is ${KEPT_WHY}` : `${shown} are ${KEPT_WHY.replace("provides it", "provides them")}`;
}

/** A tools allowlist: each name as pi names it; names pi has no counterpart for are left out. */
export function toolsValue(value: unknown): ValueReading {
	if (typeof value === "string" && /^\s*(all|none|\*)\s*$/i.test(value)) {
		const word = value.trim().toLowerCase();
		return same(word === "*" ? "all" : word);
	}
	const list = nameList(value);
	if (list === null) return none("it is not a list of tool names", "write tools as a list or a comma-separated string of tool names");
	if (list.length === 0) return same("none");
	const out: string[] = [];
	const changes: string[] = [];
	const kept: string[] = [];
	let fix: string | null = null;
	for (const written of list) {
		const tool = foreignToolName(written);
		if (tool.name !== null && !out.includes(tool.name)) out.push(tool.name);
		if (tool.kept && tool.name === written.trim()) kept.push(written.trim());
		else if (tool.outcome === "dropped") changes.push(`${written} is left out: ${tool.why}`);
		else if (tool.outcome === "approximated") changes.push(`${written}: ${tool.why}`);
		if (tool.fix && tool.outcome === "dropped" && !fix?.includes(tool.fix)) fix = fix ? `${fix}; ${tool.fix}` : tool.fix;
	}
	if (kept.length > 0) changes.push(keptNote(kept));
	const value_ = out.length === 0 ? "none" : out;
	return changes.length === 0 ? same(value_) : near(value_, changes.join("; "), fix);
}

export function capabilityValue(value: unknown): ValueReading {
	const mode = normalizeCapability(value);
	return mode === null ? none(`${JSON.stringify(value)} is not a capability mode`, "write read-only, read-write, execute or all") : same(mode);
}

export function thinkingValue(value: unknown): ValueReading {
	if (isInherit(value)) return byDefault("inherit is cadre's default: the parent's thinking level");
	const level = normalizeThinking(value);
	if (level === null) return none(`${JSON.stringify(value)} is not a thinking level`, `write one of ${THINKING_LEVELS.join(", ")}`);
	return level === value ? same(level) : near(level, `cadre spells it ${level}`);
}

/** `isolation`: worktree is kept; off / none / false is cadre's default. */
export function isolationValue(value: unknown): ValueReading {
	if (value === false || (typeof value === "string" && /^\s*(off|none|false|no)\s*$/i.test(value))) return byDefault("no isolation is cadre's default");
	const mode = normalizeIsolation(value);
	if (mode === "worktree") return same("worktree");
	return none(`${JSON.stringify(value)} is not an isolation cadre has`, "write `isolation: worktree` to run the child in its own git worktree");
}

/** `max_turns`: cadre's limit is at least 2; 0 is other tools' "no limit", cadre's default. */
export function turnsValue(value: unknown): ValueReading {
	if (typeof value !== "number" || !Number.isInteger(value) || value < 0) return none(`${JSON.stringify(value)} is not a whole number of turns`, "write `max_turns` with a whole number of at least 2");
	if (value === 0) return byDefault("0 means no limit, cadre's default");
	if (value === 1) return near(2, "cadre's smallest turn limit is 2 (one turn for the tools, one for the answer)");
	return same(value);
}

/** A thinking level written as a `:level` suffix of the model (nicobailon's form), split off. */
export function splitModelLevel(value: string): { model: string; level: string | null } {
	const at = value.lastIndexOf(":");
	if (at < 0) return { model: value, level: null };
	const level = normalizeThinking(value.slice(at + 1));
	return level === null ? { model: value, level: null } : { model: value.slice(0, at), level };
}

/** A model name resolved through pi's resolver among the available models, else kept as written. */
export function modelValue(value: unknown, models: ModelResolver): ValueReading {
	if (typeof value !== "string" || value.trim() === "") return none("it is not a model name", "write provider/id of a model pi knows");
	const name = value.trim();
	if (isInherit(name)) return byDefault("inherit is cadre's default: the parent's model");
	const later = "at spawn cadre then falls through to the next layer (the parent's model) with a warning";
	if (models === null) return near(name, `kept as written: pi's packages are not installed here, so cadre could not look the model up; if pi cannot use it, ${later}`, "check it with `cadre explain` where pi is installed");
	const found = models(name);
	if (!found.ok) return near(name, `kept as written: no available model matches it (${found.message.replace(/\.$/, "")}); ${later}`, "log in to its provider, or write provider/id of an available model");
	return found.id === name ? same(name) : near(found.id, `pi's model resolver picks ${found.id} for "${name}" among the available models`);
}
