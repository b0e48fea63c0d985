/**
 * Layered `subagents.json` (spec 01 "Settings"): `<agentDir>/subagents.json` under
 * `<project>/.pi/subagents.json`. Objects merge per key, arrays and scalars replace, type-name keys
 * are case-insensitive (stored lower-cased). JSON is parsed with the YAML library so every
 * diagnostic keeps its position; a bad value drops only its entry. Inline `roles` / `personas`
 * entries come out as entry layers for the scope merge.
 */
import type { Diagnostic, DiagnosticCode, Severity } from "../core/diagnostics.ts";
import { isHttpUrl, isInherit, nameKey, nameRecord, normalizeThinking, THINKING_LEVELS } from "../core/values.ts";
import { applyBudgetSettings, emptyBudgetSettings } from "./budget-settings.ts";
import { showValue, validateLayer } from "./keys.ts";
import { DEFAULT_MAX_FILE_BYTES, MAX_FILE_BYTES_CEILING, readFileUnder, readProblemDiagnostic } from "./read-confined.ts";
import { type Pos, parseYamlMapping, type RawField, type RawValue } from "./raw.ts";
import { applySandboxSettings, defaultSandboxSettings } from "./sandbox-settings.ts";
import { applyWorkspaceSettings } from "./workspace-settings.ts";
import { suggestKey } from "./suggest.ts";
import type { EntryLayer, Scope, Settings, ToolKind, WorktreeInclude } from "./types.ts";

/** One settings file to read. */
export interface SettingsSource {
	/** Absolute path of `subagents.json`. */
	path: string;
	/** Display path (relative to the project directory when inside it). */
	display: string;
	scope: "user" | "project";
	/** The scope root: inline entries' files resolve against it and must stay inside it. */
	root: string;
	/** The real path of a project root, when known (ADR 0060: project files are confined by real path). */
	realRoot?: string;
	/**
	 * Whether settings that widen access are honoured from this file, and whether it may loosen
	 * the narrowing ones of the files below it (ADR 0073).
	 */
	trusted: boolean;
}

export interface SettingsResult {
	settings: Settings;
	roles: EntryLayer<"role">[];
	personas: EntryLayer<"persona">[];
	/** Where each inline layer's name key was written (for diagnostics about the whole entry). */
	origins: Map<EntryLayer, { file: string; pos: Pos }>;
	/** The type names keyed in project settings' `models`, `thinking` and `toggle`, with positions. */
	projectTypeKeys: TypeKey[];
	diagnostics: Diagnostic[];
}

/** A type name used as a settings key (`models.explore`), where it was written. */
export interface TypeKey {
	file: string;
	pos: Pos;
	section: "models" | "thinking" | "toggle";
	type: string;
}

const TYPE_KEYED = ["models", "thinking", "toggle"] as const;

const TOP_KEYS = [
	"maxConcurrent",
	"defaultMaxTurns",
	"defaultBackground",
	"models",
	"thinking",
	"toggle",
	"roles",
	"personas",
	"toolKinds",
	"childExtensions",
	"worktree",
	"maxResultChars",
	"maxFileBytes",
	"strict",
	"ui",
	"telemetry",
	"contracts",
	"maxDepth",
	"budget",
	"sandbox",
	"workspaces",
];

const WIDGET_MODES = ["background", "all", "off"] as const;

const TOOL_KINDS: readonly ToolKind[] = ["read", "write", "execute"];

/** The settings every load starts from. */
export function defaultSettings(): Settings {
	return {
		maxConcurrent: { value: 4, source: "default" },
		defaultMaxTurns: null,
		defaultBackground: null,
		models: nameRecord(),
		thinking: nameRecord(),
		invalidPins: { models: nameRecord(), thinking: nameRecord() },
		toggle: nameRecord(),
		toolKinds: nameRecord(),
		childExtensions: { exclude: [] },
		worktree: { baseDir: null, allowSharedFallback: false },
		maxResultChars: 50_000,
		maxFileBytes: DEFAULT_MAX_FILE_BYTES,
		strict: false,
		ui: { widget: "background", list: true },
		contracts: { repair: true },
		maxDepth: { value: 2, source: "default" },
		budget: emptyBudgetSettings(),
		telemetry: { otlp: null },
		sandbox: defaultSandboxSettings(),
		workspaces: nameRecord(),
		files: [],
	};
}

/**
 * Reads and merges the settings files, lowest priority first. Missing files are skipped. Each file
 * is read under the size limit the files before it set; `maxFileBytes` is settled before any
 * inline entry's file is checked, so every file of the load sees the same limit.
 */
export function loadSettings(sources: SettingsSource[]): SettingsResult {
	const settings = defaultSettings();
	const roles: EntryLayer<"role">[] = [];
	const personas: EntryLayer<"persona">[] = [];
	const diagnostics: Diagnostic[] = [];
	const origins = new Map<EntryLayer, { file: string; pos: Pos }>();
	const projectTypeKeys: TypeKey[] = [];
	const parsedFiles: { source: SettingsSource; fields: RawField[] }[] = [];
	for (const source of sources) {
		const rule = { confine: source.scope, root: source.root, maxBytes: settings.maxFileBytes, ...(source.realRoot ? { realRoot: source.realRoot } : {}) };
		const read = readFileUnder(source.path, rule);
		if (!read.ok) {
			if (read.code !== "missing-file") diagnostics.push(readProblemDiagnostic(source.display, read, "the settings file", "the whole file is ignored"));
			continue;
		}
		const text = read.text;
		settings.files.unshift(source.display);
		const parsed = parseYamlMapping(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text);
		if (!parsed.ok) {
			diagnostics.push(
				at("error", source.display, parsed.error.pos, "parse-error", `${parsed.error.message}; the whole file is ignored`, "fix the JSON syntax"),
			);
			continue;
		}
		settings.maxFileBytes = fileLimit(source, parsed.fields, settings.maxFileBytes, diagnostics);
		parsedFiles.push({ source, fields: parsed.fields });
	}
	for (const { source, fields } of parsedFiles) {
		try {
			applyFile(source, fields, settings, roles, personas, origins, diagnostics);
			if (source.scope === "project") projectTypeKeys.push(...typeKeysOf(source.display, fields));
		} catch (error) {
			// A safety net: validation is written not to throw, but settings must never stop the load.
			diagnostics.push(at("error", source.display, { line: 1, column: 1 }, "parse-error", `cannot load the file (${(error as Error).message})`, "report this as a cadre bug"));
		}
	}
	return { settings, roles, personas, origins, projectTypeKeys, diagnostics };
}

/**
 * The size limit after one settings file's `maxFileBytes`: any file may lower it; only user
 * settings and a trusted project may raise it (a cloned repository must not make cadre buffer
 * gigabytes).
 */
function fileLimit(source: SettingsSource, fields: RawField[], current: number, diagnostics: Diagnostic[]): number {
	const field = fields.find((f) => f.key === "maxFileBytes");
	if (!field) return current;
	const value = field.val.value;
	if (typeof value !== "number" || !Number.isInteger(value) || value < 1 || value > MAX_FILE_BYTES_CEILING) {
		diagnostics.push(
			at("error", source.display, field.val.pos, "bad-value", `maxFileBytes expects a whole number of bytes from 1 to ${MAX_FILE_BYTES_CEILING}: ${showValue(value)}`, "fix the value; until then the limit stays"),
		);
		return current;
	}
	if (value > current && !source.trusted) {
		diagnostics.push(
			at("warning", source.display, field.keyPos, "untrusted-setting", "maxFileBytes in project settings may only lower the limit: the project is not trusted", "trust the project in pi, or raise maxFileBytes in the user settings"),
		);
		return current;
	}
	return value;
}

function typeKeysOf(file: string, fields: RawField[]): TypeKey[] {
	return fields.flatMap((field) => {
		const section = TYPE_KEYED.find((name) => name === field.key);
		if (!section || !field.val.fields) return [];
		return field.val.fields.map((entry) => ({ file, pos: entry.keyPos, section, type: entry.key }));
	});
}

function at(severity: Severity, file: string, pos: Pos, code: DiagnosticCode, message: string, hint?: string): Diagnostic {
	const d: Diagnostic = { severity, file, line: pos.line, column: pos.column, code, message };
	if (hint) d.hint = hint;
	return d;
}

/** One settings file being applied: where it is, what it writes into, and its diagnostics' shapes. */
interface FileApply {
	source: SettingsSource;
	file: string;
	settings: Settings;
	diagnostics: Diagnostic[];
	src(pos: Pos): string;
	bad(val: RawValue, what: string, expects: string, hint?: string): void;
	untrusted(field: RawField, what: string): void;
	keptNarrower(field: RawField, message: string): void;
	/** The entries of an object field, or null (reported) when it is not one. */
	objectOf(field: RawField): RawField[] | null;
}

function fileApply(source: SettingsSource, settings: Settings, diagnostics: Diagnostic[]): FileApply {
	const file = source.display;
	const bad = (val: RawValue, what: string, expects: string, hint = "fix the value; until then it is ignored") =>
		void diagnostics.push(at("error", file, val.pos, "bad-value", `${what} ${expects}: ${showValue(val.value)}`, hint));
	return {
		source,
		file,
		settings,
		diagnostics,
		src: (pos: Pos) => `settings:${file}:${pos.line}`,
		bad,
		untrusted: (field: RawField, what: string) =>
			void diagnostics.push(
				at("warning", file, field.keyPos, "untrusted-setting", `${what} in project settings is ignored: the project is not trusted`, `trust the project in pi, or move ${what} to the user settings`),
			),
		keptNarrower: (field: RawField, message: string) =>
			void diagnostics.push(at("warning", file, field.keyPos, "untrusted-setting", message, "trust the project in pi, or change the user settings")),
		objectOf: (field: RawField): RawField[] | null => {
			if (field.val.fields) return field.val.fields;
			bad(field.val, field.key, "expects an object");
			return null;
		},
	};
}

const positiveInt = (val: RawValue, min: number) => typeof val.value === "number" && Number.isInteger(val.value) && val.value >= min;

/**
 * One pin per type (`models`, `thinking`): a valid value pins it, `inherit` drops an earlier pin,
 * anything else is kept as an invalid pin (resolution reports it) and a `bad-value` error.
 */
function applyPins(a: FileApply, field: RawField, kind: "models" | "thinking", parse: (value: unknown) => string | null, expects: string): void {
	const { settings } = a;
	const pins = settings[kind] as Record<string, { value: string; source: string; column?: number }>;
	for (const entry of a.objectOf(field) ?? []) {
		const type = nameKey(entry.key);
		const value = isInherit(entry.val.value) ? null : parse(entry.val.value);
		if (value !== null) {
			pins[type] = { value, source: a.src(entry.keyPos), ...(kind === "thinking" ? { column: entry.keyPos.column } : {}) };
			delete settings.invalidPins[kind][type];
		} else if (isInherit(entry.val.value)) {
			delete pins[type];
			delete settings.invalidPins[kind][type];
		} else {
			settings.invalidPins[kind][type] = { raw: entry.val.value, source: a.src(entry.keyPos) };
			a.bad(entry.val, `${kind}.${entry.key}`, expects);
		}
	}
}

/** `models`: a model name per type. */
const applyModels = (a: FileApply, field: RawField) =>
	applyPins(a, field, "models", (value) => (typeof value === "string" && value.trim() !== "" ? value.trim() : null), "expects a model name (provider/id)");

/** `thinking`: a thinking level per type. */
const applyThinking = (a: FileApply, field: RawField) =>
	applyPins(a, field, "thinking", (value) => normalizeThinking(value), `is not one of ${THINKING_LEVELS.join(", ")}, inherit`);

/** `toggle`: types on or off; an untrusted project cannot undo the user's false. */
function applyToggle(a: FileApply, field: RawField): void {
	const { settings, source, file } = a;
	for (const entry of a.objectOf(field) ?? []) {
		const earlier = settings.toggle[nameKey(entry.key)];
		if (typeof entry.val.value !== "boolean") a.bad(entry.val, `toggle.${entry.key}`, "expects true or false");
		else if (entry.val.value && !source.trusted && earlier?.value === false && !earlier.source.startsWith(`settings:${file}:`)) {
			// Disabling narrows access, enabling widens it: an untrusted project cannot undo the user's false.
			a.keptNarrower(entry, `toggle.${entry.key}: true in project settings is ignored: the project is not trusted, and the user's settings disable ${entry.key}`);
		} else settings.toggle[nameKey(entry.key)] = { value: entry.val.value, source: a.src(entry.keyPos) };
	}
}

/** `toolKinds` (trusted only): a kind per extension tool. */
function applyToolKinds(a: FileApply, field: RawField): void {
	const entries = a.objectOf(field);
	if (entries === null) return;
	if (!a.source.trusted) {
		a.untrusted(field, "toolKinds");
		return;
	}
	for (const entry of entries) {
		const kind = typeof entry.val.value === "string" ? entry.val.value.trim().toLowerCase() : null;
		if (kind !== null && (TOOL_KINDS as readonly string[]).includes(kind)) a.settings.toolKinds[entry.key] = kind as ToolKind;
		else a.bad(entry.val, `toolKinds.${entry.key}`, `is not one of ${TOOL_KINDS.join(", ")}`);
	}
}

/** `childExtensions.exclude`: an untrusted project can add to the user's exclusions, never drop one. */
function applyChildExtensions(a: FileApply, field: RawField): void {
	const { settings, source } = a;
	for (const entry of a.objectOf(field) ?? []) {
		if (entry.key !== "exclude") {
			a.diagnostics.push(unknown(a.file, entry, ["exclude"], "childExtensions"));
		} else if (Array.isArray(entry.val.value) && entry.val.value.every((x) => typeof x === "string")) {
			const written = (entry.val.value as string[]).map((x) => x.trim()).filter((x) => x !== "");
			const before = settings.childExtensions.exclude;
			// Exclusions narrow access: an untrusted project can add to the user's, never drop one.
			const dropped = source.trusted ? [] : before.filter((name) => !written.includes(name));
			const exclude = source.trusted ? written : [...before, ...written.filter((name) => !before.includes(name))];
			settings.childExtensions = { exclude };
			if (dropped.length > 0) {
				a.keptNarrower(entry, `childExtensions.exclude in project settings cannot drop ${dropped.join(", ")}: the project is not trusted, so the user's exclusions stay`);
			}
		} else {
			a.bad(entry.val, "childExtensions.exclude", "expects a list of package names");
		}
	}
}

/** `worktree`: where worktrees go and how they are made (security-relevant keys trusted only). */
function applyWorktree(a: FileApply, field: RawField): void {
	const { settings, source, bad, untrusted, src } = a;
	for (const entry of a.objectOf(field) ?? []) {
		if (entry.key === "baseDir") {
			if (typeof entry.val.value !== "string" || entry.val.value.trim() === "") bad(entry.val, "worktree.baseDir", "expects a directory path");
			else if (!source.trusted) untrusted(entry, "worktree.baseDir");
			else settings.worktree.baseDir = entry.val.value.trim();
		} else if (entry.key === "allowSharedFallback") {
			if (typeof entry.val.value !== "boolean") bad(entry.val, "worktree.allowSharedFallback", "expects true or false");
			else if (!source.trusted) untrusted(entry, "worktree.allowSharedFallback");
			else settings.worktree.allowSharedFallback = entry.val.value;
		} else if (!applyWorktreeKey(entry, source, settings.worktree, { bad, untrusted, src })) {
			a.diagnostics.push(unknown(a.file, entry, WORKTREE_KEYS, "worktree"));
		}
	}
}

/** `ui.widget` and `contracts.repair`. */
function applyUiAndContracts(a: FileApply, field: RawField): void {
	const { settings } = a;
	for (const entry of a.objectOf(field) ?? []) {
		if (field.key === "ui") {
			const mode = WIDGET_MODES.find((name) => name === entry.val.value);
			if (entry.key === "list") {
				if (typeof entry.val.value !== "boolean") a.bad(entry.val, "ui.list", "expects true or false");
				else settings.ui = { ...settings.ui, list: entry.val.value };
			} else if (entry.key !== "widget") a.diagnostics.push(unknown(a.file, entry, ["widget", "list"], "ui"));
			else if (mode) settings.ui = { ...settings.ui, widget: mode };
			else a.bad(entry.val, "ui.widget", `is not one of ${WIDGET_MODES.join(", ")}`);
		} else {
			if (entry.key !== "repair") a.diagnostics.push(unknown(a.file, entry, ["repair"], "contracts"));
			else if (typeof entry.val.value !== "boolean") a.bad(entry.val, "contracts.repair", "expects true or false");
			else settings.contracts = { repair: entry.val.value };
		}
	}
}

/** The scalar top-level keys; false when `field` is not one. */
function applyScalar(a: FileApply, field: RawField): boolean {
	const { settings, bad, src } = a;
	const val = field.val;
	switch (field.key) {
		case "maxConcurrent":
			if (positiveInt(val, 1)) settings.maxConcurrent = { value: val.value as number, source: src(field.keyPos) };
			else bad(val, "maxConcurrent", "expects a whole number of at least 1");
			return true;
		case "defaultMaxTurns":
			if (positiveInt(val, 2)) settings.defaultMaxTurns = { value: val.value as number, source: src(field.keyPos) };
			else bad(val, "defaultMaxTurns", "expects a whole number of at least 2");
			return true;
		case "defaultBackground":
			if (typeof val.value === "boolean") settings.defaultBackground = { value: val.value, source: src(field.keyPos) };
			else bad(val, "defaultBackground", "expects true or false");
			return true;
		case "maxResultChars":
			if (positiveInt(val, 1)) settings.maxResultChars = val.value as number;
			else bad(val, "maxResultChars", "expects a whole number of at least 1");
			return true;
		case "maxFileBytes":
			return true; // settled before the entries (fileLimit)
		case "strict":
			if (typeof val.value === "boolean") settings.strict = val.value;
			else bad(val, "strict", "expects true or false");
			return true;
		case "maxDepth":
			if (positiveInt(val, 1) && (val.value as number) <= MAX_DEPTH) settings.maxDepth = { value: val.value as number, source: src(field.keyPos) };
			else bad(val, "maxDepth", `expects a whole number from 1 (no nesting) to ${MAX_DEPTH}`);
			return true;
		default:
			return false;
	}
}

const SECTIONS: Record<string, (a: FileApply, field: RawField) => void> = {
	models: applyModels,
	thinking: applyThinking,
	toggle: applyToggle,
	toolKinds: applyToolKinds,
	childExtensions: applyChildExtensions,
	worktree: applyWorktree,
	ui: applyUiAndContracts,
	contracts: applyUiAndContracts,
	sandbox: (a, field) =>
		applySandboxSettings(a.objectOf(field) ?? [], a.source, a.settings.sandbox, {
			bad: a.bad,
			untrusted: a.untrusted,
			src: a.src,
			unknown: (entry, known) => a.diagnostics.push(unknown(a.file, entry, known, "sandbox")),
		}),
	workspaces: (a, field) =>
		applyWorkspaceSettings(a.objectOf(field) ?? [], a.source, a.settings.workspaces, {
			bad: a.bad,
			untrusted: a.untrusted,
			src: a.src,
			unknown: (entry, known, where) => a.diagnostics.push(unknown(a.file, entry, known, where)),
		}),
	telemetry: (a, field) => applyTelemetry(a.objectOf(field) ?? [], a.source, a.settings, a),
	budget: (a, field) =>
		applyBudgetSettings(field, a.settings.budget, {
			trusted: a.source.trusted,
			bad: a.bad,
			keptNarrower: a.keptNarrower,
			src: a.src,
			unknown: (f, known, where) => a.diagnostics.push(unknown(a.file, f, known, where)),
		}),
};

function applyFile(
	source: SettingsSource,
	fields: RawField[],
	settings: Settings,
	roles: EntryLayer<"role">[],
	personas: EntryLayer<"persona">[],
	origins: Map<EntryLayer, { file: string; pos: Pos }>,
	diagnostics: Diagnostic[],
): void {
	const a = fileApply(source, settings, diagnostics);
	for (const field of fields) {
		if (applyScalar(a, field)) continue;
		const section = Object.hasOwn(SECTIONS, field.key) ? SECTIONS[field.key] : undefined;
		if (section) section(a, field);
		else if (field.key === "roles") inline("role", source, a.objectOf(field) ?? [], roles, origins, diagnostics, settings.maxFileBytes);
		else if (field.key === "personas") inline("persona", source, a.objectOf(field) ?? [], personas, origins, diagnostics, settings.maxFileBytes);
		else diagnostics.push(unknown(a.file, field, TOP_KEYS, "subagents.json"));
	}
}

/** The deepest `maxDepth`: every level is a live session. */
export const MAX_DEPTH = 8;

const WORKTREE_KEYS = ["baseDir", "allowSharedFallback", "pool", "include", "setup", "verify", "copyUncommitted"];

/** The largest `worktree.pool.size`: each pooled worktree is a full checkout on disk. */
export const MAX_POOL_SIZE = 8;
const DEFAULT_SETUP_TIMEOUT_S = 300;

/**
 * `telemetry.otlp` (ADR 0145): an OTLP/HTTP endpoint cadre sends its traces to. Where a run's
 * trace goes is where its tool names, models and (with content capture) prompts go, so only user
 * settings and a trusted project may name one, like `worktree.baseDir` (ADR 0073).
 */
function applyTelemetry(entries: RawField[], source: SettingsSource, settings: Settings, h: WorktreeKeyHelpers): void {
	for (const entry of entries) {
		if (entry.key !== "otlp") h.bad(entry.val, `telemetry.${entry.key}`, "is not a key (telemetry takes otlp)");
		else if (entry.val.value === null) settings.telemetry = { otlp: null };
		else if (typeof entry.val.value !== "string" || !isHttpUrl(entry.val.value)) h.bad(entry.val, "telemetry.otlp", "expects an http(s) URL of an OTLP endpoint, or null");
		else if (!source.trusted) h.untrusted(entry, "telemetry.otlp");
		else settings.telemetry = { otlp: entry.val.value.trim() };
	}
}

interface WorktreeKeyHelpers {
	bad(val: RawValue, what: string, expects: string): void;
	untrusted(field: RawField, what: string): void;
	src(pos: Pos): string;
}

/**
 * `worktree.pool`, `include`, `setup` and `copyUncommitted`; false for an unknown key. `include`
 * and `setup` run and copy things on the operator's behalf, so they are honoured only from trusted
 * files, like `allowSharedFallback`.
 */
function applyWorktreeKey(entry: RawField, source: SettingsSource, worktree: Settings["worktree"], h: WorktreeKeyHelpers): boolean {
	const { value } = entry.val;
	switch (entry.key) {
		case "pool": {
			const size = typeof value === "boolean" ? (value ? undefined : 0) : (entry.val.fields?.find((f) => f.key === "size")?.val.value ?? null);
			const unknownKey = entry.val.fields?.find((f) => f.key !== "size");
			if (unknownKey) h.bad(unknownKey.val, `worktree.pool.${unknownKey.key}`, "is not a key (pool takes size)");
			else if (size === undefined) delete worktree.pool;
			else if (typeof size === "number" && Number.isInteger(size) && size >= 0 && size <= MAX_POOL_SIZE) worktree.pool = { size };
			else h.bad(entry.val, "worktree.pool", `expects { "size": 0–${MAX_POOL_SIZE} }, true or false`);
			return true;
		}
		case "include": {
			const include = includeEntries(entry, h);
			if (include === null) return true;
			if (!source.trusted) h.untrusted(entry, "worktree.include");
			else worktree.include = include;
			return true;
		}
		case "setup": {
			const setup = setupCommand(entry, h);
			if (setup === null) return true;
			if (!source.trusted) h.untrusted(entry, "worktree.setup");
			else worktree.setup = setup;
			return true;
		}
		case "verify": {
			// run by the merge queue on each merged tree (ADR 0115): a command, so trusted files only
			const verify = setupCommand(entry, h, "worktree.verify", "npm test");
			if (verify === null) return true;
			if (!source.trusted) h.untrusted(entry, "worktree.verify");
			else worktree.verify = verify;
			return true;
		}
		case "copyUncommitted":
			if (typeof value === "boolean") worktree.copyUncommitted = { value, source: h.src(entry.keyPos) };
			else h.bad(entry.val, "worktree.copyUncommitted", "expects true or false");
			return true;
		default:
			return false;
	}
}

/** A repository-relative path without `..`, `.git` or a leading `/`, normalised; null when it is none. */
function includePath(raw: unknown): string | null {
	if (typeof raw !== "string") return null;
	const parts = raw.trim().replace(/\\/g, "/").split("/").filter((part) => part !== "" && part !== ".");
	if (raw.trim().startsWith("/") || parts.length === 0 || parts.some((part) => part === ".." || part === ".git")) return null;
	return parts.join("/");
}

function includeEntries(entry: RawField, h: WorktreeKeyHelpers): WorktreeInclude[] | null {
	const items = entry.val.items;
	if (!Array.isArray(entry.val.value) || !items) {
		h.bad(entry.val, "worktree.include", 'expects a list of paths ("node_modules", or { "path": "data", "symlink": true })');
		return null;
	}
	const include: WorktreeInclude[] = [];
	for (const item of items) {
		const fields = item.fields;
		const path = includePath(fields ? fields.find((f) => f.key === "path")?.val.value : item.value);
		const symlink = fields?.find((f) => f.key === "symlink")?.val.value ?? false;
		const stray = fields?.find((f) => f.key !== "path" && f.key !== "symlink");
		if (path === null || typeof symlink !== "boolean" || stray) {
			h.bad(item, "worktree.include entry", "expects a repository-relative path (no .., no .git) or { \"path\": …, \"symlink\": true }");
			continue;
		}
		include.push({ path, mode: symlink ? "symlink" : "copy" });
	}
	return include;
}

function setupCommand(entry: RawField, h: WorktreeKeyHelpers, key = "worktree.setup", example = "npm run codegen"): { command: string; timeoutMs: number } | null {
	const fields = entry.val.fields;
	const command = fields ? fields.find((f) => f.key === "command")?.val.value : entry.val.value;
	const timeout = fields?.find((f) => f.key === "timeoutSeconds")?.val.value ?? DEFAULT_SETUP_TIMEOUT_S;
	const stray = fields?.find((f) => f.key !== "command" && f.key !== "timeoutSeconds");
	if (typeof command !== "string" || command.trim() === "" || stray) {
		h.bad(entry.val, key, `expects a command ("${example}") or { "command": …, "timeoutSeconds": 300 }`);
		return null;
	}
	if (typeof timeout !== "number" || !(timeout > 0) || timeout > 3600) {
		h.bad(entry.val, `${key}.timeoutSeconds`, "expects a number of seconds between 1 and 3600");
		return null;
	}
	return { command: command.trim(), timeoutMs: Math.round(timeout * 1000) };
}

function unknown(file: string, field: RawField, known: string[], where: string): Diagnostic {
	const suggestion = suggestKey(field.key, known, "camel");
	let message = `unknown key ${field.key} in ${where}`;
	let hint = `known keys: ${known.join(", ")}`;
	if (suggestion) {
		message += suggestion.convention
			? ` — settings keys are camelCase: did you mean ${suggestion.key}?`
			: ` — did you mean ${suggestion.key}?`;
		hint = `rename it to ${suggestion.key}`;
	}
	return at("error", file, field.keyPos, "unknown-key", message, hint);
}

function inline<K extends "role" | "persona">(
	kind: K,
	source: SettingsSource,
	entries: RawField[],
	out: EntryLayer<K>[],
	origins: Map<EntryLayer, { file: string; pos: Pos }>,
	diagnostics: Diagnostic[],
	maxBytes: number,
): void {
	const file = source.display;
	const scope: Scope = source.scope === "project" ? "project-inline" : "user-inline";
	const counts = new Map<string, number>();
	for (const entry of entries) counts.set(nameKey(entry.key), (counts.get(nameKey(entry.key)) ?? 0) + 1);
	for (const entry of entries) {
		if ((counts.get(nameKey(entry.key)) ?? 0) > 1) {
			diagnostics.push(
				at("error", file, entry.keyPos, "ambiguous-name", `${kind} ${entry.key} is defined more than once (names ignore case); every copy is skipped`, "keep one entry per name"),
			);
			continue;
		}
		if (!entry.val.fields) {
			diagnostics.push(
				at("error", file, entry.val.pos, "bad-value", `${kind} ${entry.key} expects an object of ${kind} keys: ${showValue(entry.val.value)}`, "write the entry as an object"),
			);
			continue;
		}
		const result = validateLayer(kind, entry.val.fields, {
			kind,
			file,
			sourcePrefix: `settings:${file}`,
			name: entry.key,
			baseDir: source.root,
			root: source.root,
			confine: source.scope,
			maxBytes,
			textInKeys: true,
		});
		diagnostics.push(...result.diagnostics);
		if (result.skip) continue;
		const layer: EntryLayer<K> = {
			kind,
			name: entry.key,
			scope,
			path: `settings:${file}`,
			origin: `settings:${file}:${entry.keyPos.line}`,
			body: result.text,
			keys: result.keys,
			invalid: result.invalid,
			unread: result.unread,
		};
		out.push(layer);
		origins.set(layer as EntryLayer, { file, pos: entry.keyPos });
	}
}
