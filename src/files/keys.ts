/**
 * The keys of definitions, roles and personas (spec 01): which keys each kind has, their synonyms,
 * how a raw value becomes a canonical one, and the diagnostics for everything else. One function,
 * `validateLayer`, turns positioned raw fields into an entry layer's keys, rejected values and body.
 */
import { isAbsolute, normalize } from "node:path";
import type { Diagnostic, DiagnosticCode, Severity } from "../core/diagnostics.ts";
import {
	CAPABILITY_MODES,
	IO_TYPES,
	ISOLATION_MODES,
	isInherit,
	nameKey,
	nameRecord,
	normalizeCapability,
	normalizeIoType,
	normalizeIsolation,
	normalizeSandbox,
	normalizeThinking,
	SANDBOX_MODES,
	THINKING_LEVELS,
} from "../core/values.ts";
import { compileSchema } from "../core/json-schema.ts";
import { BUDGET_DIMENSIONS, budgetEntryProblem } from "../core/budget.ts";
import { describeMapping, type ForeignSource, foreignKeyFor, foreignKeyKind, type MappedValues, type RenamedTarget } from "./foreign-keys.ts";
import { checkConfined } from "./read-confined.ts";
import type { Pos, RawField, RawValue } from "./raw.ts";
import { suggestKey, toSnakeCase } from "./suggest.ts";
import { checkToolNames } from "./tool-names.ts";
import type { EntryKind, EntryLayer, FileRef, IoSpec, Rejected, Sourced, ToolKind, ToolRule, UnreadRestriction } from "./types.ts";


/** Keys that restrict access: an unreadable value refuses the spawn instead of falling through (ADR 0064). */
const ACCESS_KEYS: ReadonlySet<string> = new Set(["capability", "tools", "subagents", "budget"]);
/** Where a layer was written and what its relative paths resolve against. */
export interface LayerContext {
	kind: EntryKind;
	/** Display path of the file diagnostics point at. */
	file: string;
	/** Prefix of every source: the display path for files, `settings:<path>` for inline entries. */
	sourcePrefix: string;
	/** The name of the entry (file stem or settings key), for `name` checks and messages. */
	name: string;
	/** Directory `prompt_file` / `instructions_file` resolve against. */
	baseDir: string;
	/** The scope root those files must stay inside. */
	root: string;
	/** How the root confines them (ADR 0060): on the real path (project) or as written (user). */
	confine: "project" | "user";
	/** The size limit for those files. */
	maxBytes: number;
	/** `prompt` (role) / `instructions` (persona) carry the text in TOML files and settings. */
	textInKeys: boolean;
	/** Settings `toolKinds` after the trust gate: the extension tools a `tools` list may name. */
	toolKinds?: Readonly<Record<string, ToolKind>>;
}

export interface ValidatedLayer<K extends EntryKind> {
	keys: EntryLayer<K>["keys"];
	invalid: EntryLayer<K>["invalid"];
	/** Text from `prompt` / `instructions` (TOML and settings only). */
	text: Sourced<string> | null;
	/** True when the whole layer must be skipped (`name-mismatch`). */
	skip: boolean;
	/** Restrictions written for another tool that cadre cannot honour (ADR 0072). */
	unread: UnreadRestriction[];
	diagnostics: Diagnostic[];
}

/** A failed check may point at the part of the value that is wrong (`pos`), else the value is. */
type Checked = { ok: true; value: unknown } | { ok: false; message: string; hint?: string; pos?: Pos } | { ok: "unset" };

type Checker = (raw: RawValue, ctx: LayerContext, diagnostics: Diagnostic[]) => Checked;

const BOOLEAN: Checker = (raw) =>
	typeof raw.value === "boolean" ? { ok: true, value: raw.value } : { ok: false, message: "expects true or false" };

const TEXT: Checker = (raw) => {
	if (typeof raw.value === "string") return raw.value.trim() === "" ? { ok: "unset" } : { ok: true, value: raw.value.trim() };
	if (typeof raw.value === "number") return { ok: true, value: String(raw.value) };
	return { ok: false, message: "expects text" };
};

const MODEL: Checker = (raw, ctx, diagnostics) => (isInherit(raw.value) ? { ok: "unset" } : TEXT(raw, ctx, diagnostics));

function enumChecker(normalise: (raw: unknown) => string | null, allowed: readonly string[], inherit = false): Checker {
	return (raw) => {
		if (inherit && isInherit(raw.value)) return { ok: "unset" };
		const value = normalise(raw.value);
		return value === null
			? { ok: false, message: `is not one of ${allowed.join(", ")}${inherit ? ", inherit" : ""}` }
			: { ok: true, value };
	};
}

const CAPABILITY = enumChecker(normalizeCapability, CAPABILITY_MODES);
const ISOLATION = enumChecker(normalizeIsolation, ISOLATION_MODES);
const SANDBOX = enumChecker(normalizeSandbox, SANDBOX_MODES);
const THINKING = enumChecker(normalizeThinking, THINKING_LEVELS, true);

const MAX_TURNS: Checker = (raw) =>
	typeof raw.value === "number" && Number.isInteger(raw.value) && raw.value >= 2
		? { ok: true, value: raw.value }
		: { ok: false, message: "expects a whole number of at least 2" };

const TOOLS: Checker = (raw, ctx, diagnostics) => {
	let names: unknown[];
	if (typeof raw.value === "string") {
		const word = raw.value.trim().toLowerCase();
		if (word === "all" || word === "none") return { ok: true, value: word };
		names = raw.value.split(",");
		if (names.every((n) => String(n).trim() === "")) return { ok: "unset" };
	} else if (Array.isArray(raw.value)) {
		names = raw.value;
		if (names.length === 0) {
			return { ok: false, message: "is an empty list", hint: "write `none` for no tools, or remove the key to use the parent's tools" };
		}
	} else {
		return { ok: false, message: "expects a list or a comma-separated string of tool names, `all` or `none`" };
	}
	const out: string[] = [];
	for (const name of names) {
		if (typeof name !== "string" || name.trim() === "") return { ok: false, message: "has an entry that is not a tool name" };
		const trimmed = name.trim();
		if (/^(all|none)$/i.test(trimmed)) {
			return { ok: false, message: `mixes \`${trimmed}\` with tool names`, hint: `write \`${trimmed.toLowerCase()}\` alone` };
		}
		if (!out.includes(trimmed)) out.push(trimmed);
	}
	checkToolNames(raw, out, ctx, diagnostics);
	return { ok: true, value: out };
};

/**
 * `subagents` (issue 21): the types a child that delegates may spawn — `*` (every enabled type),
 * `none`, or a list (or comma string) of type names.
 */
const SUBAGENTS: Checker = (raw) => {
	const expects = "expects `*`, `none` or a list of type names";
	const words = typeof raw.value === "string" ? raw.value.split(",") : Array.isArray(raw.value) ? raw.value : null;
	if (words === null) return { ok: false, message: expects };
	if (words.length === 0) return { ok: false, message: "is an empty list", hint: "write `none` to let the child spawn no type, or `*` for every type" };
	const names: string[] = [];
	for (const word of words) {
		if (typeof word !== "string" || word.trim() === "") return { ok: false, message: `${expects}; an entry is not a name` };
		const name = word.trim();
		if ((name === "*" || name.toLowerCase() === "none") && words.length > 1) return { ok: false, message: `mixes \`${name}\` with type names`, hint: `write \`${name}\` alone` };
		if (name === "*") return { ok: true, value: "*" };
		if (name.toLowerCase() === "none") return { ok: true, value: [] };
		if (!names.some((other) => nameKey(other) === nameKey(name))) names.push(name);
	}
	return { ok: true, value: names };
};

/**
 * `workspace` (issue 25): the settings `workspaces` a child may run on — a name or a list (a comma
 * string too); `local` is this machine. Names are checked against the settings at spawn
 * (`workspace-unknown`), where the settings are known.
 */
const WORKSPACE: Checker = (raw) => {
	const words = typeof raw.value === "string" ? raw.value.split(",") : Array.isArray(raw.value) ? raw.value : null;
	if (words === null || words.length === 0) return { ok: false, message: "expects a workspace name or a list of names (settings `workspaces`, or `local`)" };
	const names: string[] = [];
	for (const word of words) {
		if (typeof word !== "string" || word.trim() === "") return { ok: false, message: "expects workspace names; an entry is not a name" };
		if (!names.includes(nameKey(word.trim()))) names.push(nameKey(word.trim()));
	}
	return { ok: true, value: names };
};

/**
 * `budget` (issue 22): `{ tokens, cost, time }`. A dimension that cannot be read rejects the key,
 * pointed at that dimension: the resolver then refuses the spawn rather than run it with a larger
 * budget than the file asked for.
 */
const BUDGET: Checker = (raw) => {
	if (!raw.fields) return { ok: false, message: "expects a mapping of tokens, cost and time (e.g. `budget: { tokens: 200000, cost: 0.5 }`)" };
	const value: Record<string, number> = {};
	for (const field of raw.fields) {
		const problem = budgetEntryProblem(field.key, field.val.value);
		if (problem) return { ok: false, message: `has ${problem}`, pos: BUDGET_DIMENSIONS.some((d) => d === field.key) ? field.val.pos : field.keyPos };
		value[field.key] = field.val.value as number;
	}
	return { ok: true, value };
};

const FILE_HINTS: Record<string, string> = {
	"path-escape": "keep the file inside the scope root (the project directory, or the agent dir for user files)",
	"not-a-file": "point the key at a regular file",
	"file-too-large": "shorten the file, or raise maxFileBytes in your user settings (~/.pi/agent/subagents.json)",
};

function fileChecker(): Checker {
	return (raw, ctx, diagnostics) => {
		if (typeof raw.value !== "string" || raw.value.trim() === "") return { ok: false, message: "expects a file path" };
		const ref: FileRef = {
			written: raw.value.trim(),
			baseDir: ctx.baseDir,
			root: ctx.root,
			declaredIn: ctx.file,
			confine: ctx.confine,
			maxBytes: ctx.maxBytes,
		};
		const checked = checkConfined(ref);
		if (!checked.ok) {
			// Reported, never dropped: the file is read again at spawn time (spec 01).
			const severity: Severity = checked.code !== "path-escape" && ctx.kind === "role" ? "warning" : "error";
			const hint =
				FILE_HINTS[checked.code] ??
				(ctx.kind === "persona"
					? "create the file or fix the path: a persona whose file cannot be read refuses every spawn that uses it"
					: "create the file or fix the path: the role still applies without this text");
			diagnostics.push(diag(severity, ctx.file, raw.pos, checked.code, `${ctx.kind} ${ctx.name}: ${checked.message}`, hint));
		}
		return { ok: true, value: ref };
	};
}

const IO_KEYS = ["name", "io_type", "required", "description"];
const OUTPUT_KEYS = [...IO_KEYS, "path"];

/** An output's `path`: relative, and not leaving the child's cwd as written (the run's end checks the real path). */
function outputPath(v: unknown): { ok: true; path: string } | { ok: false; message: string } {
	if (typeof v !== "string" || v.trim() === "") return { ok: false, message: "has a `path` that is not a relative path" };
	const path = v.trim();
	if (isAbsolute(path) || /^[A-Za-z]:[\\/]/.test(path)) return { ok: false, message: `has a \`path\` that is absolute (${path}); write it relative to the child's working directory` };
	if (normalize(path).split(/[\\/]/)[0] === "..") return { ok: false, message: `has a \`path\` that leaves the child's working directory (${path})` };
	return { ok: true, path };
}

function ioList(outputs: boolean): Checker {
	return (raw, ctx, diagnostics) => {
		const keys = outputs ? OUTPUT_KEYS : IO_KEYS;
		if (!Array.isArray(raw.value) || !raw.items) {
			return { ok: false, message: `expects a list of \`{${keys.join(", ")}}\` entries` };
		}
		const specs: IoSpec[] = [];
		for (const item of raw.items) {
			if (!item.fields) return { ok: false, message: "has an entry that is not a `{name, …}` mapping" };
			const spec: IoSpec = { name: "", io_type: "file", required: false, description: null, path: null };
			for (const field of item.fields) {
				const v = field.val.value;
				if (field.key === "name") {
					if (typeof v !== "string" || v.trim() === "") return { ok: false, message: "has an entry whose `name` is not text" };
					spec.name = v.trim();
				} else if (field.key === "io_type") {
					const t = normalizeIoType(v);
					if (t === null) return { ok: false, message: `has an io_type that is not one of ${IO_TYPES.join(", ")}` };
					spec.io_type = t;
				} else if (field.key === "required") {
					if (typeof v !== "boolean") return { ok: false, message: "has a `required` that is not true or false" };
					spec.required = v;
				} else if (field.key === "description") {
					if (typeof v !== "string") return { ok: false, message: "has a `description` that is not text" };
					spec.description = v.trim() === "" ? null : v.trim();
				} else if (field.key === "path" && outputs) {
					const path = outputPath(v);
					if (!path.ok) return path;
					spec.path = path.path;
				} else {
					diagnostics.push(unknownKey(ctx, field, keys, outputs ? "an output" : "an input"));
				}
			}
			if (spec.name === "") return { ok: false, message: "has an entry without a `name`" };
			if (spec.path !== null && (spec.io_type === "text" || spec.io_type === "url")) {
				return { ok: false, message: `gives ${spec.name} (io_type ${spec.io_type}) a \`path\`: a text or url output is a section of the final answer` };
			}
			if (specs.some((other) => other.name.toLowerCase() === spec.name.toLowerCase())) {
				return { ok: false, message: `names ${spec.name} twice (names ignore case)` };
			}
			specs.push(spec);
		}
		return { ok: true, value: specs };
	};
}

/** An inline `output_schema`: a mapping that is a JSON Schema (checked by the validator, ADR 0098). */
const OUTPUT_SCHEMA: Checker = (raw) => {
	const compiled = compileSchema(raw.value);
	if (!compiled.ok) return { ok: false, message: `is not a usable JSON Schema (${compiled.message})`, hint: "fix the schema, or point output_schema_file at a JSON file holding it" };
	return { ok: true, value: { inline: raw.value as Record<string, unknown> } };
};

/** `output_schema_file`: a file like `prompt_file`, read and checked at every spawn. */
const OUTPUT_SCHEMA_FILE: Checker = (raw, ctx, diagnostics) => {
	const checked = fileChecker()(raw, ctx, diagnostics);
	return checked.ok === true ? { ok: true, value: { file: checked.value as FileRef } } : checked;
};

/** `verify: "npm test"` or `{ command, timeoutSeconds }` (300 s default; issue 23): a command cadre runs after the child. */
const VERIFY: Checker = (raw) => {
	const value = raw.value;
	const record = typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
	const command = record ? record.command : value;
	const seconds = record?.timeoutSeconds ?? 300;
	const stray = record ? Object.keys(record).find((key) => key !== "command" && key !== "timeoutSeconds") : undefined;
	if (typeof command !== "string" || command.trim() === "" || stray !== undefined) {
		return { ok: false, message: 'expects a command ("npm test") or { command: …, timeoutSeconds: 300 }' };
	}
	if (typeof seconds !== "number" || !(seconds > 0) || seconds > 3600) return { ok: false, message: "timeoutSeconds expects a number of seconds between 1 and 3600" };
	return { ok: true, value: { command: command.trim(), timeoutMs: Math.round(seconds * 1000) } };
};

interface KeySpec {
	canonical: string;
	check: Checker;
}

function table(entries: Record<string, Checker>, synonyms: Record<string, string>, spellings: Record<string, KeySpec> = {}): Record<string, KeySpec> {
	const out = nameRecord<KeySpec>();
	for (const [key, check] of Object.entries(entries)) out[key] = { canonical: key, check };
	for (const [synonym, canonical] of Object.entries(synonyms)) {
		const spec = out[canonical];
		if (spec) out[synonym] = spec;
	}
	return Object.assign(out, spellings);
}

const THINKING_SYNONYMS = { effort: "thinking", reasoning_effort: "thinking" };

/** Accepted keys per kind (canonical and synonyms), excluding `name` and the text key. */
export const KEY_SPECS: Record<EntryKind, Record<string, KeySpec>> = {
	definition: table(
		{
			description: TEXT,
			display_name: TEXT,
			tools: TOOLS,
			capability: CAPABILITY,
			model: MODEL,
			thinking: THINKING,
			isolation: ISOLATION,
			sandbox: SANDBOX,
			persona: TEXT,
			max_turns: MAX_TURNS,
			run_in_background: BOOLEAN,
			inherit_context: BOOLEAN,
			enabled: BOOLEAN,
			output_schema: OUTPUT_SCHEMA,
			subagents: SUBAGENTS,
			budget: BUDGET,
			verify: VERIFY,
			workspace: WORKSPACE,
		},
		THINKING_SYNONYMS,
		// Two spellings of one key: the schema inline or in a file (both in one file repeat the key).
		{ output_schema_file: { canonical: "output_schema", check: OUTPUT_SCHEMA_FILE } },
	),
	role: table(
		{ description: TEXT, capability: CAPABILITY, model: MODEL, thinking: THINKING, isolation: ISOLATION, sandbox: SANDBOX, prompt_file: fileChecker(), subagents: SUBAGENTS, budget: BUDGET, verify: VERIFY, workspace: WORKSPACE },
		{ ...THINKING_SYNONYMS, default_capability_mode: "capability", default_isolation: "isolation" },
	),
	persona: table(
		{
			description: TEXT,
			instructions_file: fileChecker(),
			model: MODEL,
			thinking: THINKING,
			isolation: ISOLATION,
			inputs: ioList(false),
			outputs: ioList(true),
			verify: VERIFY,
		},
		{ ...THINKING_SYNONYMS, default_isolation: "isolation" },
	),
};

/** The key that carries the text in TOML files and settings entries. */
export const TEXT_KEY: Record<EntryKind, string | null> = { definition: null, role: "prompt", persona: "instructions" };

/** Keys a definition no longer has (spec 01), with why and what to do instead; `cadre import` reports them too. */
export const REMOVED_KEYS: Readonly<Record<string, { why: string; instead: string }>> = {
	prompt_mode: {
		why: "a definition has one shape: a nonempty body replaces the instructions below it, an empty body inherits them",
		instead: "remove prompt_mode; leave the body empty to keep the lower layer's instructions",
	},
	locked: {
		why: "the request always wins, so nothing can be locked against it",
		instead: "remove locked; pin a model per type with `models` in subagents.json if operators must decide it",
	},
};

/** Keys that exist on another kind, with why they do not belong here. */
const MISPLACED: Record<EntryKind, Record<string, string>> = {
	definition: {},
	role: {
		tools: "a role never sets tools; put `tools` in the definition",
		persona: "a role never names a persona; set `persona` in the definition",
	},
	persona: {
		capability: "personas never grant or remove access; set `capability` in the definition or its role",
		default_capability_mode: "personas never grant or remove access; set `capability` in the definition or its role",
		tools: "personas never grant or remove access; set `tools` in the definition",
	},
};

/** A raw value as the user wrote it, for messages (never throws, e.g. on a TOML BigInt). */
export function showValue(value: unknown): string {
	try {
		return JSON.stringify(value) ?? String(value);
	} catch {
		return String(value);
	}
}

function diag(severity: Severity, file: string, pos: Pos, code: DiagnosticCode, message: string, hint?: string): Diagnostic {
	const d: Diagnostic = { severity, file, line: pos.line, column: pos.column, code, message };
	if (hint) d.hint = hint;
	return d;
}

function unknownKey(ctx: LayerContext, field: RawField, known: string[], what: string): Diagnostic {
	const suggestion = suggestKey(field.key, known, "snake");
	let message = `unknown key ${field.key} in ${what}`;
	let hint = `known keys: ${known.join(", ")}`;
	if (suggestion?.convention) {
		message += ` — keys are snake_case: did you mean ${suggestion.key}?`;
		hint = `rename it to ${suggestion.key}`;
	} else if (suggestion) {
		message += ` — did you mean ${suggestion.key}?`;
		hint = `rename it to ${suggestion.key}, or remove it`;
	}
	return diag("error", ctx.file, field.keyPos, "unknown-key", message, hint);
}

/** Another tool's name for a cadre key: ignored with a warning, like other tools' keys (ADR 0010, 0094). */
function renamedKey(ctx: LayerContext, field: RawField, isA: string, target: RenamedTarget, from: ForeignSource): Diagnostic {
	const cadre = target === "body" ? "the file's body (below the closing ---)" : `cadre's ${target}`;
	const message = `${isA} for ${cadre}; cadre reads only its own names in its folders, so it is ignored`;
	const hint = `${target === "body" ? "move the text into the body" : `rename it to ${target}`}, or convert the file with \`cadre import --from ${from}\``;
	return diag("warning", ctx.file, field.keyPos, "unknown-key", message, hint);
}

/** Validates one layer's raw fields. Never throws; every problem becomes a diagnostic. */
export function validateLayer<K extends EntryKind>(kind: K, fields: RawField[], ctx: LayerContext): ValidatedLayer<K> {
	const specs = KEY_SPECS[kind];
	const textKey = ctx.textInKeys ? TEXT_KEY[kind] : null;
	const known = () => [...Object.keys(specs), "name", ...(textKey ? [textKey] : [])];
	const keys: Record<string, Sourced<unknown>> = {};
	const invalid: Record<string, Rejected> = {};
	const seen = new Map<string, string>();
	const diagnostics: Diagnostic[] = [];
	let text: Sourced<string> | null = null;
	let skip = false;
	const what = `${kind} ${ctx.name}`;
	const sourceAt = (pos: Pos) => `${ctx.sourcePrefix}:${pos.line}`;
	const unread: UnreadRestriction[] = [];
	const mappedKeys: MappedKey[] = [];
	/** A restriction cadre cannot honour: an error at the key, and a refusal of every spawn using the entry. */
	const refuse = (field: RawField, isA: string, why: string, fix: string) => {
		unread.push({ key: field.key, where: `${ctx.file}:${field.keyPos.line}:${field.keyPos.column}`, why, fix });
		const message = `${isA} that restricts the child, and cadre cannot honour it: ${why}; every spawn that uses ${what} is refused`;
		diagnostics.push(diag("error", ctx.file, field.keyPos, "restriction-unread", message, fix));
	};

	for (const field of fields) {
		const key = field.key;
		if (key === "name") {
			const v = field.val.value;
			if (typeof v !== "string" || nameKey(v) !== nameKey(ctx.name)) {
				skip = true;
				diagnostics.push(
					diag("error", ctx.file, field.val.pos, "name-mismatch", `name ${showValue(v)} does not match ${showValue(ctx.name)}; the ${kind} is skipped`, `rename the file to match, or remove the name key`),
				);
			}
			continue;
		}
		if (textKey !== null && key === textKey) {
			const v = field.val.value;
			if (typeof v !== "string") {
				diagnostics.push(diag("error", ctx.file, field.val.pos, "bad-value", `${key} of ${what} expects text`, "write the text as a string"));
			} else if (v.trim() !== "") {
				text = { value: v.trim(), source: sourceAt(field.keyPos) };
			}
			continue;
		}
		const removed = Object.hasOwn(REMOVED_KEYS, key) ? REMOVED_KEYS[key] : undefined;
		if (removed && kind === "definition") {
			diagnostics.push(diag("warning", ctx.file, field.keyPos, "removed-key", `${key} has no effect: ${removed.why}`, removed.instead));
			continue;
		}
		// A kind's own text key (`prompt` of a role) is never another tool's key.
		const foreign = key === TEXT_KEY[kind] ? null : foreignKeyFor(key, field.val.value);
		if (foreign) {
			const reading = foreign.read(field.val.value);
			const isA = `${key} is ${foreignKeyKind(foreign)}`;
			if (reading.outcome === "mapped") mappedKeys.push({ field, isA, values: reading.values, notes: reading.notes });
			else if (reading.outcome === "refused") refuse(field, isA, reading.why, reading.fix);
			else if (reading.outcome === "renamed" && toSnakeCase(key) === reading.key) diagnostics.push(unknownKey(ctx, field, known(), what));
			else if (reading.outcome === "renamed") diagnostics.push(renamedKey(ctx, field, isA, reading.key, foreign.from[0] as ForeignSource));
			else diagnostics.push(diag("warning", ctx.file, field.keyPos, "unknown-key", `${isA} that cadre does not use (${reading.why}); it is ignored`, reading.instead));
			continue;
		}
		const spec = specs[key];
		if (!spec) {
			const misplaced = Object.hasOwn(MISPLACED[kind], key) ? MISPLACED[kind][key] : undefined;
			if (misplaced) {
				diagnostics.push(diag("error", ctx.file, field.keyPos, "unknown-key", `${key} is not a ${kind} key`, misplaced));
			} else if (!ctx.textInKeys && key === TEXT_KEY[kind]) {
				diagnostics.push(
					diag("error", ctx.file, field.keyPos, "unknown-key", `${key} is not a key of a Markdown ${kind} file: its text is the body`, `write the text as the body, below the closing ---`),
				);
			} else if (removed) {
				diagnostics.push(diag("warning", ctx.file, field.keyPos, "removed-key", `${key} has no effect: ${removed.why}`, removed.instead));
			} else {
				diagnostics.push(unknownKey(ctx, field, known(), what));
			}
			continue;
		}
		const canonical = spec.canonical;
		const earlier = seen.get(canonical);
		if (earlier !== undefined) {
			diagnostics.push(
				diag("error", ctx.file, field.keyPos, "bad-value", `${key} repeats ${earlier} (the same setting); this one is ignored`, `keep only one of ${earlier} and ${key}`),
			);
			continue;
		}
		seen.set(canonical, key);
		if (field.val.value === null || field.val.value === undefined) continue;
		const checked = spec.check(field.val, ctx, diagnostics);
		if (checked.ok === "unset") continue;
		if (checked.ok) {
			keys[canonical] = { value: checked.value, source: sourceAt(field.keyPos), column: field.keyPos.column };
		} else {
			invalid[canonical] = { raw: field.val.value, source: sourceAt(field.keyPos) };
			diagnostics.push(
				diag("error", ctx.file, checked.pos ?? field.val.pos, "bad-value", `${key} of ${what} ${checked.message}${checked.pos ? "" : `: ${showValue(field.val.value)}`}`, checked.hint ?? (ACCESS_KEYS.has(canonical) && kind !== "persona" ? "fix the value; until then every spawn that uses this file is refused (an unread restriction never widens access)" : "fix the value; until then the key is ignored")),
			);
		}
	}
	for (const item of mappedKeys) applyMapped(item, kind, keys, { sourceAt, refuse, ctx, diagnostics });
	return {
		keys: keys as ValidatedLayer<K>["keys"],
		invalid: invalid as ValidatedLayer<K>["invalid"],
		text,
		skip,
		unread,
		diagnostics,
	};
}

/** A foreign key read as cadre values, applied once the file's own keys are known. */
interface MappedKey {
	field: RawField;
	/** `permissionMode is a Claude Code key`. */
	isA: string;
	values: MappedValues;
	notes: string[];
}

/** Where each mapped value goes among the canonical keys. */
const MAPPED_TARGETS: readonly { value: keyof MappedValues; key: string; kinds: readonly EntryKind[] }[] = [
	{ value: "capability", key: "capability", kinds: ["definition", "role"] },
	{ value: "enabled", key: "enabled", kinds: ["definition"] },
	{ value: "toolRules", key: "tool_rules", kinds: ["definition"] },
];

/**
 * Puts a foreign key's mapped values among the layer's keys, sourced at the foreign key (ADR 0072):
 * tool rules add to the layer's others; a capability or `enabled` that the file's own key (or
 * another foreign key) contradicts is refused, as is a restriction this kind cannot hold.
 */
function applyMapped(
	item: MappedKey,
	kind: EntryKind,
	keys: Record<string, Sourced<unknown>>,
	at: { sourceAt: (pos: Pos) => string; refuse: (field: RawField, isA: string, why: string, fix: string) => void; ctx: LayerContext; diagnostics: Diagnostic[] },
): void {
	const { field, isA, values, notes } = item;
	const targets = MAPPED_TARGETS.filter((target) => values[target.value] !== undefined);
	const misplaced = targets.find((target) => !target.kinds.includes(kind));
	if (misplaced) {
		const what = misplaced.key === "tool_rules" ? "tools" : misplaced.key;
		const never = kind === "persona" ? "a persona never grants or removes access" : "a role never sets tools";
		at.refuse(field, isA, `it restricts the child's ${what}, and ${never}`, `move ${field.key} to the definition`);
		return;
	}
	for (const target of targets) {
		const existing = keys[target.key];
		const value = values[target.value];
		if (target.key === "tool_rules") {
			// Each key's rules are a set of their own: one key's allow never undoes another's deny.
			const earlier = (existing?.value as ToolRule[] | undefined) ?? [];
			const set = new Set(earlier.map((rule) => rule.set ?? 0)).size;
			const rules = [...earlier, ...(value as ToolRule[]).map((rule) => ({ ...rule, set }))];
			keys[target.key] = { value: rules, source: existing?.source ?? at.sourceAt(field.keyPos), column: existing?.column ?? field.keyPos.column };
		} else if (existing === undefined) {
			keys[target.key] = { value, source: at.sourceAt(field.keyPos), column: field.keyPos.column };
		} else if (existing.value !== value) {
			at.refuse(field, isA, `it reads as ${target.key}: ${String(value)}, but ${existing.source} says ${target.key}: ${String(existing.value)}`, "keep one of them");
			return;
		}
	}
	const silence = [
		values.capability ? `write \`capability: ${values.capability}\`` : null,
		values.enabled === false ? "write `enabled: false`" : null,
		values.toolRules ? (field.key === "tools" ? "write `tools` as the list of the child's tools" : "list the child's tools in `tools`") : null,
	].filter((part) => part !== null);
	const hint = field.key === "tools" ? `${silence.join(" and ")} instead` : `${silence.join(" and ")} instead, and remove ${field.key}`;
	const more = notes.length > 0 ? ` (${notes.join("; ")})` : "";
	at.diagnostics.push(diag("warning", at.ctx.file, field.keyPos, "foreign-key", `${isA}; cadre reads it as ${describeMapping(values)}${more}`, hint));
}
