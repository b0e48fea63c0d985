/**
 * Hand-built resolver inputs for unit tests: `LoadResult` values, a stub model catalog and a stub
 * spawn-time reader, so every resolution rule can be tested without the file system or pi.
 */
import type { Diagnostic } from "../../../src/core/diagnostics.ts";
import { THINKING_LEVELS, type ThinkingLevel } from "../../../src/core/values.ts";
import type { Entry, EntryKind, FileFault, FileRef, LoadResult, Rejected, Scope, Settings, Sourced, UnreadRestriction } from "../../../src/files/types.ts";
import { builtinToolNames } from "../../../src/resolve/tools.ts";
import type { ModelCatalog, ParentFacts, ResolveInput, SpawnReader, SpawnRequest } from "../../../src/resolve/types.ts";
import { defaultSettings } from "../../../src/files/settings.ts";

export interface EntrySpec {
	name: string;
	scope?: Scope;
	/** Display path; default `.pi/<kind dir>/<name>.md`. */
	path?: string;
	body?: string | null;
	/** Valid keys, each sourced at `path:<line>` from line 2 on, in the order given. */
	keys?: Record<string, unknown>;
	/** Rejected raw values (the loader's `invalid`). */
	invalid?: Record<string, unknown>;
	/** Restrictions the loader could not read (ADR 0072). */
	unread?: UnreadRestriction[];
}

const DIRS: Record<EntryKind, string> = { definition: "agents", role: "roles", persona: "personas" };

export function entry<K extends EntryKind>(kind: K, spec: EntrySpec): Entry<K> {
	const scope = spec.scope ?? "project";
	const path = spec.path ?? (scope === "bundled" ? "bundled" : `.pi/${DIRS[kind]}/${spec.name}.md`);
	const at = (line: number) => (path === "bundled" ? "bundled" : `${path}:${line}`);
	let line = 2;
	const keys: Record<string, Sourced<unknown>> = {};
	for (const [key, value] of Object.entries(spec.keys ?? {})) keys[key] = { value, source: at(line++) };
	const invalid: Record<string, Rejected> = {};
	for (const [key, raw] of Object.entries(spec.invalid ?? {})) invalid[key] = { raw, source: at(line++) };
	const body = spec.body === undefined || spec.body === null ? null : { value: spec.body, source: at(line + 1) };
	const built = { kind, name: spec.name, scope, path, body, keys, invalid, unread: spec.unread ?? [], layers: [] } as unknown as Entry<K>;
	return built;
}

/** A `prompt_file` / `instructions_file` reference as the loader would store it. */
export function fileRef(written: string, declaredIn = ".pi/personas/x.md"): FileRef {
	return { written, baseDir: "/project/.pi/personas", root: "/project", declaredIn };
}

export function settings(overrides: Partial<Settings> = {}): Settings {
	return { ...defaultSettings(), ...overrides };
}

/** The built-ins, written fresh for tests (the real ones come from src/files). */
export function bundled(): Entry<"definition">[] {
	return [
		entry("definition", { name: "general-purpose", scope: "bundled" }),
		entry("definition", {
			name: "explore",
			scope: "bundled",
			body: "Explore the code.",
			keys: { tools: ["read", "grep", "find", "ls"], capability: "read-only" },
		}),
		entry("definition", {
			name: "plan",
			scope: "bundled",
			body: "Plan the change.",
			keys: { tools: ["read", "grep", "find", "ls"], capability: "read-only" },
		}),
	];
}

export interface LoadSpec {
	definitions?: Entry<"definition">[];
	roles?: Entry<"role">[];
	personas?: Entry<"persona">[];
	settings?: Partial<Settings>;
	diagnostics?: Diagnostic[];
	/** File errors by owner (the loader's `faults`); default none. */
	faults?: FileFault[];
	projectDir?: string | null;
}

const byKey = <K extends EntryKind>(entries: Entry<K>[]) => new Map(entries.map((e) => [e.name.toLowerCase(), e]));

export function loaded(spec: LoadSpec = {}): LoadResult {
	const definitions = byKey(bundled());
	for (const definition of spec.definitions ?? []) definitions.set(definition.name.toLowerCase(), definition);
	return {
		projectDir: spec.projectDir === undefined ? "/project" : spec.projectDir,
		agentDir: "/agent",
		definitions,
		roles: byKey(spec.roles ?? []),
		personas: byKey(spec.personas ?? []),
		settings: settings(spec.settings),
		diagnostics: spec.diagnostics ?? [],
		faults: spec.faults ?? [],
		skipped: [],
	};
}

export interface CatalogSpec {
	/** Available `provider/id`s. */
	available?: string[];
	/** Known models without credentials. */
	noCredentials?: string[];
	/** Supported thinking levels per model id (default: all). */
	levels?: Record<string, ThinkingLevel[]>;
}

/** A catalog that resolves exact `provider/id` or a unique bare id. */
export function catalog(spec: CatalogSpec = {}): ModelCatalog {
	const available = spec.available ?? ["test/model-a", "test/model-b", "test/model-c", "test/parent"];
	const noCredentials = spec.noCredentials ?? [];
	const find = (name: string, list: string[]) => list.find((id) => id === name || id.endsWith(`/${name}`));
	return {
		lookup(name) {
			const hit = find(name, available);
			if (hit) return { ok: true, id: hit };
			const closest = available.slice(0, 3);
			if (find(name, noCredentials)) return { ok: false, reason: "no-credentials", message: `${name} has no credentials`, closest };
			return { ok: false, reason: "unknown", message: `model "${name}" not found`, closest };
		},
		clampThinking(id, level) {
			const levels = spec.levels?.[id];
			if (!levels || levels.includes(level)) return level;
			const wanted = THINKING_LEVELS.indexOf(level);
			const below = [...levels].reverse().find((l) => THINKING_LEVELS.indexOf(l) <= wanted);
			return below ?? levels[0] ?? "off";
		},
	};
}

/** A reader over an in-memory map of written paths; `../` outside paths escape. */
export function reader(files: Record<string, string> = {}, directories: string[] = ["/project", "/project/src"]): SpawnReader {
	return {
		read(ref) {
			if (ref.written.startsWith("/") || ref.written.startsWith("../../")) {
				return { ok: false, code: "path-escape", message: `"${ref.written}" leaves ${ref.root}` };
			}
			const text = files[ref.written];
			return text === undefined ? { ok: false, code: "missing-file", message: `"${ref.written}" does not exist` } : { ok: true, text };
		},
		isDirectory: (path) => directories.includes(path),
		locate: (path) => (directories.includes(path) ? { kind: "directory", realPath: path } : null),
	};
}

export function parent(overrides: Partial<ParentFacts> = {}): ParentFacts {
	return {
		cwd: "/project",
		model: "test/parent",
		thinking: "medium",
		activeTools: ["read", "bash", "edit", "write"],
		toolUniverse: builtinToolNames("linux"),
		repoRoot: "/project",
		...overrides,
	};
}

/** A full resolver input with sensible defaults. */
export function input(overrides: Partial<ResolveInput> & { request?: SpawnRequest } = {}): ResolveInput {
	return {
		request: {},
		type: "general-purpose",
		loaded: loaded(),
		parent: parent(),
		models: catalog(),
		reader: reader(),
		...overrides,
	};
}
