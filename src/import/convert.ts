/**
 * One foreign agent → the keys and body of a cadre file, with a report line per field (ADR 0094).
 * Every key goes through the one foreign-key table (src/files/foreign-keys.ts) first, then cadre's
 * own keys (src/files/keys.ts) with their values read in the other tool's terms. Restrictions
 * become cadre keys: tool rules an explicit `tools` list, read-only modes `capability`; a
 * restriction cadre cannot honour writes `enabled: false` (ADR 0095). Pure: file reads and model
 * lookups come in through {@link ConvertContext}.
 */
import { builtinToolNames } from "../core/pi-tools.ts";
import type { CapabilityMode } from "../core/values.ts";
import { describeMapping, foreignKeyFor, type MappedValues, type RenamedTarget } from "../files/foreign-keys.ts";
import { cadreNameFor, type ImportSource } from "../files/foreign-places.ts";
import { KEY_SPECS, REMOVED_KEYS, TEXT_KEY } from "../files/keys.ts";
import { suggestKey } from "../files/suggest.ts";
import type { EntryKind, ToolKind, ToolRule } from "../files/types.ts";
import { applyToolRules, MODE_KEEPS } from "../resolve/tools.ts";
import {
	booleanValue,
	capabilityValue,
	isolationValue,
	type ModelResolver,
	modelValue,
	none,
	splitModelLevel,
	textValue,
	thinkingValue,
	toolsValue,
	turnsValue,
	type ValueReading,
} from "./field-values.ts";
import type { ForeignAgent, ForeignField } from "./parse-foreign.ts";
import type { FieldReport } from "./report.ts";

export interface ConvertContext {
	source: ImportSource;
	models: ModelResolver;
	/** Reads a file a key points to (relative to the foreign file), confined to the source's root. */
	readReferenced(written: string): { ok: true; text: string; path: string } | { ok: false; why: string };
	/** A referenced file's path as the cadre file must write it, or null when it cannot point there (inline it). */
	rebase(path: string): string | null;
}

/** A cadre file to write: canonical keys in order, the body (or TOML text key), and the report. */
export interface Converted {
	kind: EntryKind;
	name: string;
	/** Canonical cadre keys and values, in the order they are written. */
	keys: [string, unknown][];
	/** Standing instructions (definition), role prompt or persona instructions. */
	text: string | null;
	fields: FieldReport[];
	/** Why the agent is not imported at all (opencode's primary agents), else null. */
	skip: string | null;
	/** Comment lines written above a key (why the type is written `enabled: false`). */
	comments: Record<string, string[]>;
}

/** The written order of a cadre file's keys. */
const ORDER = ["description", "display_name", "tools", "capability", "model", "thinking", "isolation", "persona", "max_turns", "run_in_background", "inherit_context", "enabled", "prompt_file", "instructions_file", "inputs", "outputs"];

/** The mode allowing what all of `modes` allow (read-write with execute is read-only), by the kinds each keeps. */
function narrowest(modes: readonly CapabilityMode[]): CapabilityMode {
	const limited = modes.map((mode) => MODE_KEEPS[mode]).filter((kinds): kinds is ReadonlySet<ToolKind> => kinds !== null);
	const [first] = limited;
	if (first === undefined) return "all";
	const kinds = [...first].filter((kind) => limited.every((keeps) => keeps.has(kind)));
	const found = (Object.entries(MODE_KEEPS) as [CapabilityMode, ReadonlySet<ToolKind> | null][]).find(([, k]) => k !== null && k.size === kinds.length && kinds.every((kind) => k.has(kind)));
	return found ? found[0] : "read-only";
}

/** Where a report points: the key as written and its position (null for a key the file lacks). */
type At = { key: string; line: number | null; column: number | null };

class Draft {
	readonly keys = new Map<string, unknown>();
	readonly fields: FieldReport[] = [];
	readonly texts: string[] = [];
	readonly rules: { rules: ToolRule[]; report: FieldReport }[] = [];
	readonly capabilities: { mode: CapabilityMode; report: FieldReport }[] = [];
	readonly refusals: FieldReport[] = [];
	disabled: FieldReport | null = null;
	tools: { value: "all" | "none" | string[]; report: FieldReport } | null = null;
	level: string | null = null;

	report(f: At, reading: Pick<ValueReading, "outcome" | "why" | "fix">, written: string | null): FieldReport {
		const report: FieldReport = { key: f.key, line: f.line, column: f.column, outcome: reading.outcome, written, why: reading.why, fix: reading.fix };
		this.fields.push(report);
		return report;
	}
}

/** `key: value` as the report shows a written value; never throws (TOML maps have no prototype). */
function shown(key: string, value: unknown): string {
	if (typeof value === "string") return `${key}: ${value}`;
	if (Array.isArray(value) && value.every((item) => typeof item === "string")) return `${key}: ${value.join(", ")}`;
	try {
		return `${key}: ${JSON.stringify(value)}`;
	} catch {
		return `${key}: ${String(typeof value)}`;
	}
}

/** Converts one foreign agent. */
export function convertAgent(agent: ForeignAgent, ctx: ConvertContext): Converted {
	const draft = new Draft();
	const nameField = agent.fields.find((f) => f.key === "name" && typeof f.value === "string" && f.value.trim() !== "");
	const written = nameField ? (nameField.value as string).trim() : agent.pathName;
	const name = agent.kind === "persona" && cadreNameFor(written).toLowerCase() === "none" ? "none-persona" : cadreNameFor(written);
	const nameReading = name === written ? { outcome: "mapped" as const, why: null, fix: null } : { outcome: "approximated" as const, why: `cadre names a file by letters, digits, - and _ ("${written}" becomes ${name})`, fix: null };
	draft.report(nameField ?? { key: "name", line: null, column: null }, nameReading, `file ${name}`);

	for (const f of agent.fields) if (f.key !== "name") readField(f, agent, draft, ctx);
	if (agent.body !== null) {
		draft.texts.unshift(agent.body);
		draft.report({ key: "body", line: agent.bodyLine, column: 1 }, { outcome: "mapped", why: null, fix: null }, bodyWritten(agent.kind));
	}
	finishRestrictions(draft);
	return {
		kind: agent.kind,
		name,
		keys: ORDER.filter((key) => draft.keys.has(key)).map((key) => [key, draft.keys.get(key)]),
		text: draft.texts.length === 0 ? null : draft.texts.join("\n\n"),
		fields: draft.fields,
		skip: primaryAgent(agent, ctx.source),
		comments: disabledComments(draft.refusals),
	};
}

/** What the written file says above `enabled: false` when a restriction cadre cannot honour disabled it. */
function disabledComments(refusals: readonly FieldReport[]): Record<string, string[]> {
	if (refusals.length === 0) return {};
	const oneLine = (text: string) => text.replace(/\s+/g, " ").trim();
	const lines = refusals.flatMap((r) => [`disabled by cadre import: ${r.key}: ${oneLine((r.why ?? "").replace(/; the type is written disabled.*$/, ""))}`, `fix: ${oneLine(r.fix ?? "")}`]);
	return { enabled: lines };
}

const bodyWritten = (kind: EntryKind) => (kind === "definition" ? "the body (standing instructions)" : kind === "role" ? "the role prompt" : "the persona's instructions");

/** opencode's primary agents are the assistant a user talks to, not sub-agents. */
function primaryAgent(agent: ForeignAgent, source: ImportSource): string | null {
	if (source !== "opencode") return null;
	const mode = agent.fields.find((f) => f.key === "mode")?.value;
	if (mode === "primary") return "it is an opencode primary agent (the assistant you talk to), not a sub-agent";
	if (mode === undefined && agent.entry !== null && ["build", "plan"].includes(agent.entry)) {
		return `it configures opencode's own primary ${agent.entry} agent, not a sub-agent`;
	}
	return null;
}

function readField(f: ForeignField, agent: ForeignAgent, draft: Draft, ctx: ConvertContext): void {
	const asText = f.readAsText ? ` (read as text: ${f.readAsText})` : "";
	const removed = agent.kind === "definition" && Object.hasOwn(REMOVED_KEYS, f.key) ? REMOVED_KEYS[f.key] : undefined;
	if (removed) {
		draft.report(f, none(`${removed.why}`, removed.instead.replace(/^remove [^;]+; /, "")), null);
		return;
	}
	const foreign = f.key === TEXT_KEY[agent.kind] ? null : foreignKeyFor(f.key, f.value);
	if (foreign) {
		const reading = foreign.read(f.value);
		if (reading.outcome === "mapped") mapRestriction(f, reading.values, reading.notes, agent.kind, draft);
		else if (reading.outcome === "refused") draft.refusals.push(draft.report(f, none(reading.why, reading.fix), null));
		else if (reading.outcome === "ignored") draft.report(f, none(reading.why, reading.instead), null);
		else readCadreKey(reading.key, reading.value, f, agent, draft, ctx);
		return;
	}
	const spec = KEY_SPECS[agent.kind][f.key];
	if (spec || (agent.kind !== "definition" && f.key === TEXT_KEY[agent.kind])) {
		readCadreKey(spec?.canonical ?? "body", f.value, f, agent, draft, ctx, asText);
		return;
	}
	const near = suggestKey(f.key, Object.keys(KEY_SPECS[agent.kind]), "snake");
	const mean = near ? ` (did you mean ${near.key}?)` : "";
	// opencode passes keys it does not know to the provider as model options (its docs, "Additional").
	const why = ctx.source === "opencode" && agent.format !== "markdown" ? `opencode passes ${f.key} to the provider as a model option; cadre passes none` : `cadre has no ${f.key} setting${mean}`;
	draft.report(f, none(why, near ? `write ${near.key} if that is what it means, else nothing is lost` : "nothing to do unless the other tool relied on it"), null);
}

/** A foreign restriction read as cadre values: kept until every key is read, then written. */
function mapRestriction(f: ForeignField, values: MappedValues, notes: string[], kind: EntryKind, draft: Draft): void {
	const why = notes.length > 0 ? notes.join("; ") : null;
	const report = draft.report(f, { outcome: why ? "approximated" : "mapped", why, fix: null }, describeMapping(values));
	if (kind !== "definition" && (values.toolRules || values.enabled !== undefined || (kind === "persona" && values.capability))) {
		report.outcome = "dropped";
		report.written = null;
		report.why = `it restricts the child, and a ${kind} cannot`;
		report.fix = `move ${f.key} to the definition of the type`;
		draft.refusals.push(report);
		return;
	}
	if (values.capability) draft.capabilities.push({ mode: values.capability, report });
	if (values.toolRules) draft.rules.push({ rules: values.toolRules, report });
	if (values.enabled === false) draft.disabled ??= report;
}

/** A cadre key (or another tool's name for one), its value read in the other tool's terms. */
function readCadreKey(key: RenamedTarget | string, value: unknown, at: At, agent: ForeignAgent, draft: Draft, ctx: ConvertContext, asText = ""): void {
	if (key === "body") return readText(value, at, agent.kind, draft, ctx);
	if (key === "prompt_file" || key === "instructions_file") return readFileKey(key, value, at, agent.kind, draft, ctx);
	let reading: ValueReading;
	if (key === "tools") reading = toolsValue(value);
	else if (key === "capability") reading = capabilityValue(value);
	else if (key === "thinking") reading = thinkingValue(value);
	else if (key === "isolation") reading = isolationValue(value);
	else if (key === "max_turns") reading = turnsValue(value);
	else if (key === "model") reading = modelReading(value, draft, ctx);
	else if (["run_in_background", "inherit_context", "enabled"].includes(key)) reading = booleanValue(value);
	else if (["inputs", "outputs"].includes(key)) reading = { outcome: "mapped", value, why: null, fix: null };
	else reading = textValue(value);
	if (asText && reading.outcome === "mapped") reading = { ...reading, outcome: "approximated", why: asText.trim().replace(/^\(|\)$/g, "") };
	const report = draft.report(at, reading, reading.value === undefined ? null : shown(key, reading.value));
	if (reading.value === undefined) return;
	if (key === "tools") draft.tools = { value: reading.value as "all" | "none" | string[], report };
	else if (key === "capability") draft.capabilities.push({ mode: reading.value as CapabilityMode, report });
	else if (key === "enabled" && reading.value === false) draft.disabled ??= report;
	else if (key === "enabled") draft.keys.set("enabled", true);
	else if (key === "thinking" && draft.keys.has("thinking")) {
		report.outcome = "dropped";
		report.written = null;
		report.why = `an earlier key already sets thinking: ${String(draft.keys.get("thinking"))}`;
		report.fix = "keep one of them";
	} else draft.keys.set(key, reading.value);
}

function modelReading(value: unknown, draft: Draft, ctx: ConvertContext): ValueReading {
	if (typeof value !== "string") return modelValue(value, ctx.models);
	const { model, level } = splitModelLevel(value.trim());
	const reading = modelValue(model, ctx.models);
	if (level === null) return reading;
	if (!draft.keys.has("thinking")) draft.keys.set("thinking", level);
	const why = `the :${level} suffix is written as thinking: ${level}`;
	return { ...reading, outcome: "approximated", why: reading.why ? `${why}; ${reading.why}` : why };
}

/** Instructions written in a key (`developer_instructions`, opencode's `prompt`, a TOML `instructions`). */
function readText(value: unknown, at: At, kind: EntryKind, draft: Draft, ctx: ConvertContext): void {
	if (typeof value !== "string") {
		draft.report(at, none("it is not text", "write the instructions as the file's body"), null);
		return;
	}
	const file = /^\s*\{file:(.+)\}\s*$/.exec(value);
	if (!file) {
		if (value.trim() !== "") draft.texts.push(value.trim());
		draft.report(at, { outcome: "mapped", why: null, fix: null }, bodyWritten(kind));
		return;
	}
	const read = ctx.readReferenced((file[1] as string).trim());
	if (!read.ok) {
		draft.report(at, none(`the file it names cannot be read: ${read.why}`, `copy the instructions into the body of the cadre file`), null);
		return;
	}
	if (read.text.trim() !== "") draft.texts.push(read.text.trim());
	draft.report(at, { outcome: "approximated", why: `the text of ${(file[1] as string).trim()} is copied into the file`, fix: null }, bodyWritten(kind));
}

/** A role's `prompt_file` / a persona's `instructions_file`: pointed at from the new place, or copied in. */
function readFileKey(key: string, value: unknown, at: At, kind: EntryKind, draft: Draft, ctx: ConvertContext): void {
	if (typeof value !== "string" || value.trim() === "") {
		draft.report(at, none("it is not a file path", "write the path of the file, relative to this file"), null);
		return;
	}
	const read = ctx.readReferenced(value.trim());
	if (!read.ok) {
		draft.report(at, none(`the file cannot be read: ${read.why}`, "fix the path, or copy its text into the file"), null);
		return;
	}
	const rebased = ctx.rebase(read.path);
	if (rebased !== null) {
		draft.keys.set(key, rebased);
		const outcome = rebased === value.trim() ? "mapped" : "approximated";
		draft.report(at, { outcome, why: outcome === "mapped" ? null : "the path is written relative to the cadre file", fix: null }, shown(key, rebased));
		return;
	}
	if (read.text.trim() !== "") draft.texts.push(read.text.trim());
	draft.report(at, { outcome: "approximated", why: "the file is outside the scope cadre writes to, so its text is copied in", fix: null }, bodyWritten(kind));
}

/** Writes the restrictions: the tools the child keeps, the narrowest capability, enabled: false. */
function finishRestrictions(draft: Draft): void {
	if (draft.rules.length > 0) {
		const base = draft.tools?.value ?? null;
		const start = base === null || base === "all" ? builtinToolNames("linux") : base === "none" ? [] : base;
		// Each key filters on its own (ADR 0072): one key's allow never gives back another's deny.
		const kept = draft.rules.reduce((tools, r) => applyToolRules(tools, r.rules), start);
		const tools = kept.length === 0 ? "none" : kept;
		draft.keys.set("tools", tools);
		const line = shown("tools", tools);
		const inherited =
			base === null || base === "all"
				? "cadre writes the tools the child keeps: pi's built-in tools without the denied ones, so extension and MCP tools the parent has are no longer inherited (add them to tools if the child needs them)"
				: null;
		for (const { report } of draft.rules) {
			report.written = line;
			if (inherited) {
				report.outcome = "approximated";
				report.why = [report.why, inherited].filter((part) => part !== null).join("; ");
			}
		}
		if (draft.tools) draft.tools.report.written = line;
	} else if (draft.tools) draft.keys.set("tools", draft.tools.value);
	if (draft.capabilities.length > 0) {
		const mode = narrowest(draft.capabilities.map((c) => c.mode));
		draft.keys.set("capability", mode);
		for (const { mode: own, report } of draft.capabilities) {
			report.written = `capability: ${mode}`;
			if (own !== mode) {
				report.outcome = "approximated";
				report.why = `another key allows less, and cadre keeps what both allow: capability: ${mode}`;
			}
		}
	}
	const refused = draft.refusals[0];
	if (refused) {
		draft.keys.set("enabled", false);
		for (const report of draft.refusals) {
			report.written = "enabled: false";
			report.why = `${report.why}; the type is written disabled (enabled: false) so it never runs with more access than its author wrote`;
			report.fix = `${report.fix}, then remove enabled: false`;
		}
	} else if (draft.disabled) {
		draft.keys.set("enabled", false);
		draft.disabled.written = "enabled: false";
	}
}
