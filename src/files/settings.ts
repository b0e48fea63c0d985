/**
 * Layered `subagents.json` (spec 01 "Settings"): `<agentDir>/subagents.json` under
 * `<project>/.pi/subagents.json`. Objects merge per key, arrays and scalars replace, type-name keys
 * are case-insensitive (stored lower-cased). JSON is parsed with the YAML library so every
 * diagnostic keeps its position; a bad value drops only its entry. Inline `roles` / `personas`
 * entries come out as entry layers for the scope merge.
 */
import type { Diagnostic, DiagnosticCode, Severity } from "../core/diagnostics.ts";
import { isInherit, nameKey, nameRecord, normalizeThinking, THINKING_LEVELS } from "../core/values.ts";
import { showValue, validateLayer } from "./keys.ts";
import { DEFAULT_MAX_FILE_BYTES, MAX_FILE_BYTES_CEILING, readFileUnder, readProblemDiagnostic } from "./read-confined.ts";
import { type Pos, parseYamlMapping, type RawField, type RawValue } from "./raw.ts";
import { applySandboxSettings, defaultSandboxSettings } from "./sandbox-settings.ts";
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
	"contracts",
	"sandbox",
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
		ui: { widget: "background" },
		contracts: { repair: true },
		sandbox: defaultSandboxSettings(),
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

function applyFile(
	source: SettingsSource,
	fields: RawField[],
	settings: Settings,
	roles: EntryLayer<"role">[],
	personas: EntryLayer<"persona">[],
	origins: Map<EntryLayer, { file: string; pos: Pos }>,
	diagnostics: Diagnostic[],
): void {
	const file = source.display;
	const src = (pos: Pos) => `settings:${file}:${pos.line}`;
	const bad = (val: RawValue, what: string, expects: string, hint = "fix the value; until then it is ignored") =>
		diagnostics.push(at("error", file, val.pos, "bad-value", `${what} ${expects}: ${showValue(val.value)}`, hint));
	const untrusted = (field: RawField, what: string) =>
		diagnostics.push(
			at("warning", file, field.keyPos, "untrusted-setting", `${what} in project settings is ignored: the project is not trusted`, `trust the project in pi, or move ${what} to the user settings`),
		);
	const keptNarrower = (field: RawField, message: string) =>
		diagnostics.push(at("warning", file, field.keyPos, "untrusted-setting", message, "trust the project in pi, or change the user settings"));
	const objectOf = (field: RawField): RawField[] | null => {
		if (field.val.fields) return field.val.fields;
		bad(field.val, field.key, "expects an object");
		return null;
	};
	const positiveInt = (val: RawValue, min: number) => typeof val.value === "number" && Number.isInteger(val.value) && val.value >= min;

	for (const field of fields) {
		const val = field.val;
		switch (field.key) {
			case "maxConcurrent":
				if (positiveInt(val, 1)) settings.maxConcurrent = { value: val.value as number, source: src(field.keyPos) };
				else bad(val, "maxConcurrent", "expects a whole number of at least 1");
				break;
			case "defaultMaxTurns":
				if (positiveInt(val, 2)) settings.defaultMaxTurns = { value: val.value as number, source: src(field.keyPos) };
				else bad(val, "defaultMaxTurns", "expects a whole number of at least 2");
				break;
			case "defaultBackground":
				if (typeof val.value === "boolean") settings.defaultBackground = { value: val.value, source: src(field.keyPos) };
				else bad(val, "defaultBackground", "expects true or false");
				break;
			case "maxResultChars":
				if (positiveInt(val, 1)) settings.maxResultChars = val.value as number;
				else bad(val, "maxResultChars", "expects a whole number of at least 1");
				break;
			case "maxFileBytes":
				break; // settled before the entries (fileLimit)
			case "strict":
				if (typeof val.value === "boolean") settings.strict = val.value;
				else bad(val, "strict", "expects true or false");
				break;
			case "models":
				for (const entry of objectOf(field) ?? []) {
					const type = nameKey(entry.key);
					if (typeof entry.val.value === "string" && entry.val.value.trim() !== "" && !isInherit(entry.val.value)) {
						settings.models[type] = { value: entry.val.value.trim(), source: src(entry.keyPos) };
						delete settings.invalidPins.models[type];
					} else if (isInherit(entry.val.value)) {
						delete settings.models[type];
						delete settings.invalidPins.models[type];
					} else {
						settings.invalidPins.models[type] = { raw: entry.val.value, source: src(entry.keyPos) };
						bad(entry.val, `models.${entry.key}`, "expects a model name (provider/id)");
					}
				}
				break;
			case "thinking":
				for (const entry of objectOf(field) ?? []) {
					const type = nameKey(entry.key);
					const level = normalizeThinking(entry.val.value);
					if (level !== null) {
						settings.thinking[type] = { value: level, source: src(entry.keyPos), column: entry.keyPos.column };
						delete settings.invalidPins.thinking[type];
					} else if (isInherit(entry.val.value)) {
						delete settings.thinking[type];
						delete settings.invalidPins.thinking[type];
					} else {
						settings.invalidPins.thinking[type] = { raw: entry.val.value, source: src(entry.keyPos) };
						bad(entry.val, `thinking.${entry.key}`, `is not one of ${THINKING_LEVELS.join(", ")}, inherit`);
					}
				}
				break;
			case "toggle":
				for (const entry of objectOf(field) ?? []) {
					const earlier = settings.toggle[nameKey(entry.key)];
					if (typeof entry.val.value !== "boolean") bad(entry.val, `toggle.${entry.key}`, "expects true or false");
					else if (entry.val.value && !source.trusted && earlier?.value === false && !earlier.source.startsWith(`settings:${file}:`)) {
						// Disabling narrows access, enabling widens it: an untrusted project cannot undo the user's false.
						keptNarrower(entry, `toggle.${entry.key}: true in project settings is ignored: the project is not trusted, and the user's settings disable ${entry.key}`);
					} else settings.toggle[nameKey(entry.key)] = { value: entry.val.value, source: src(entry.keyPos) };
				}
				break;
			case "toolKinds": {
				const entries = objectOf(field);
				if (entries === null) break;
				if (!source.trusted) {
					untrusted(field, "toolKinds");
					break;
				}
				for (const entry of entries) {
					const kind = typeof entry.val.value === "string" ? entry.val.value.trim().toLowerCase() : null;
					if (kind !== null && (TOOL_KINDS as readonly string[]).includes(kind)) settings.toolKinds[entry.key] = kind as ToolKind;
					else bad(entry.val, `toolKinds.${entry.key}`, `is not one of ${TOOL_KINDS.join(", ")}`);
				}
				break;
			}
			case "childExtensions":
				for (const entry of objectOf(field) ?? []) {
					if (entry.key !== "exclude") {
						diagnostics.push(unknown(file, entry, ["exclude"], "childExtensions"));
					} else if (Array.isArray(entry.val.value) && entry.val.value.every((x) => typeof x === "string")) {
						const written = (entry.val.value as string[]).map((x) => x.trim()).filter((x) => x !== "");
						const before = settings.childExtensions.exclude;
						// Exclusions narrow access: an untrusted project can add to the user's, never drop one.
						const dropped = source.trusted ? [] : before.filter((name) => !written.includes(name));
						const exclude = source.trusted ? written : [...before, ...written.filter((name) => !before.includes(name))];
						settings.childExtensions = { exclude };
						if (dropped.length > 0) {
							keptNarrower(entry, `childExtensions.exclude in project settings cannot drop ${dropped.join(", ")}: the project is not trusted, so the user's exclusions stay`);
						}
					} else {
						bad(entry.val, "childExtensions.exclude", "expects a list of package names");
					}
				}
				break;
			case "worktree":
				for (const entry of objectOf(field) ?? []) {
					if (entry.key === "baseDir") {
						if (typeof entry.val.value !== "string" || entry.val.value.trim() === "") bad(entry.val, "worktree.baseDir", "expects a directory path");
						else if (!source.trusted) untrusted(entry, "worktree.baseDir");
						else settings.worktree.baseDir = entry.val.value.trim();
					} else if (entry.key === "allowSharedFallback") {
						if (typeof entry.val.value !== "boolean") bad(entry.val, "worktree.allowSharedFallback", "expects true or false");
						else if (!source.trusted) untrusted(entry, "worktree.allowSharedFallback");
						else settings.worktree.allowSharedFallback = entry.val.value;
					} else if (!applyWorktreeKey(entry, source, settings.worktree, { bad, untrusted, src })) {
						diagnostics.push(unknown(file, entry, WORKTREE_KEYS, "worktree"));
					}
				}
				break;
			case "ui":
				for (const entry of objectOf(field) ?? []) {
					const mode = WIDGET_MODES.find((name) => name === entry.val.value);
					if (entry.key !== "widget") diagnostics.push(unknown(file, entry, ["widget"], "ui"));
					else if (mode) settings.ui = { widget: mode };
					else bad(entry.val, "ui.widget", `is not one of ${WIDGET_MODES.join(", ")}`);
				}
				break;
			case "contracts":
				for (const entry of objectOf(field) ?? []) {
					if (entry.key !== "repair") diagnostics.push(unknown(file, entry, ["repair"], "contracts"));
					else if (typeof entry.val.value !== "boolean") bad(entry.val, "contracts.repair", "expects true or false");
					else settings.contracts = { repair: entry.val.value };
				}
				break;
			case "sandbox":
				applySandboxSettings(objectOf(field) ?? [], source, settings.sandbox, { bad, untrusted, src, unknown: (entry, known) => diagnostics.push(unknown(file, entry, known, "sandbox")) });
				break;
			case "roles":
				inline("role", source, objectOf(field) ?? [], roles, origins, diagnostics, settings.maxFileBytes);
				break;
			case "personas":
				inline("persona", source, objectOf(field) ?? [], personas, origins, diagnostics, settings.maxFileBytes);
				break;
			default:
				diagnostics.push(unknown(file, field, TOP_KEYS, "subagents.json"));
		}
	}
}

const WORKTREE_KEYS = ["baseDir", "allowSharedFallback", "pool", "include", "setup", "copyUncommitted"];

/** The largest `worktree.pool.size`: each pooled worktree is a full checkout on disk. */
export const MAX_POOL_SIZE = 8;
const DEFAULT_SETUP_TIMEOUT_S = 300;

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

function setupCommand(entry: RawField, h: WorktreeKeyHelpers): { command: string; timeoutMs: number } | null {
	const fields = entry.val.fields;
	const command = fields ? fields.find((f) => f.key === "command")?.val.value : entry.val.value;
	const timeout = fields?.find((f) => f.key === "timeoutSeconds")?.val.value ?? DEFAULT_SETUP_TIMEOUT_S;
	const stray = fields?.find((f) => f.key !== "command" && f.key !== "timeoutSeconds");
	if (typeof command !== "string" || command.trim() === "" || stray) {
		h.bad(entry.val, "worktree.setup", 'expects a command ("npm run codegen") or { "command": …, "timeoutSeconds": 300 }');
		return null;
	}
	if (typeof timeout !== "number" || !(timeout > 0) || timeout > 3600) {
		h.bad(entry.val, "worktree.setup.timeoutSeconds", "expects a number of seconds between 1 and 3600");
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
