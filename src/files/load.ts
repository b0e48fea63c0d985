/**
 * Loading (spec 01): finds the project, reads every definition, role and persona file of the
 * project and user scopes, the layered settings with their inline entries, and cadre's built-ins,
 * and merges them by scope. Synchronous and fast: it runs at every spawn. Never throws on bad
 * input; every problem is a positioned diagnostic and one bad file never hides another.
 */
import { basename, dirname, join, sep } from "node:path";
import { compareDiagnostics, type Diagnostic, type DiagnosticCode } from "../core/diagnostics.ts";
import { nameKey } from "../core/values.ts";
import { bundledDefinitions } from "./builtins.ts";
import { faultsOf } from "./file-faults.ts";
import { displayPath, findProjectDir, KIND_DIRS, type KindFile, listKindFiles } from "./discovery.ts";
import { validateLayer } from "./keys.ts";
import { gateVerify } from "./verify-gate.ts";
import { mergeLayers, SCOPE_ORDER } from "./merge.ts";
import { confine, type ReadRule, readFileUnder, readProblemDiagnostic, realRootOf } from "./read-confined.ts";
import { type FrontmatterParse, parseFrontmatter, parseTomlFields, type Pos, type RawParse } from "./raw.ts";
import { loadSettings, type SettingsSource } from "./settings.ts";
import { suggestKey } from "./suggest.ts";
import type { Entry, EntryKind, EntryLayer, FileOwner, LoadOptions, LoadResult, Scope, Settings, SkippedFile, Sourced } from "./types.ts";

const KINDS: readonly EntryKind[] = ["definition", "role", "persona"];

interface FileScope {
	scope: "project" | "user";
	/** `<project>/.pi` or the agent dir: where the kind folders live. */
	base: string;
	/** The confinement root: of every file read, and of the files these files point to. */
	root: string;
	/** Settings `toolKinds` after the trust gate (for checking `tools` names). */
	toolKinds?: Settings["toolKinds"];
	/** How files are read: confinement (project: real path; user: as written) and size limit. */
	rule: ReadRule;
}

/** Loads everything for `options.cwd`. */
export function loadAll(options: LoadOptions): LoadResult {
	const projectDir = findProjectDir(options.cwd, options.agentDir, options.homeDir);
	const show = (path: string) => displayPath(path, projectDir);
	const diagnostics: Diagnostic[] = [];
	const skipped: SkippedFile[] = [];
	const project = projectDir === null ? null : projectFiles(projectDir, show, diagnostics);

	const settingsSources: SettingsSource[] = [
		{ path: join(options.agentDir, "subagents.json"), display: "", scope: "user", root: options.agentDir, trusted: true },
	];
	if (project !== null) {
		settingsSources.push({
			path: join(project.dir, ".pi", "subagents.json"),
			display: "",
			scope: "project",
			root: project.dir,
			realRoot: project.realRoot,
			trusted: options.projectTrusted,
		});
	}
	const owners = new Map<string, FileOwner>();
	for (const source of settingsSources) {
		source.display = show(source.path);
		owners.set(source.display, { kind: "settings" });
	}
	const loadedSettings = loadSettings(settingsSources);
	diagnostics.push(...loadedSettings.diagnostics);

	const maxBytes = loadedSettings.settings.maxFileBytes;
	const scopes: FileScope[] = [];
	if (project !== null) {
		const rule: ReadRule = { confine: "project", root: project.dir, realRoot: project.realRoot, maxBytes };
		scopes.push({ scope: "project", base: join(project.dir, ".pi"), root: project.dir, rule });
	}
	scopes.push({ scope: "user", base: options.agentDir, root: options.agentDir, rule: { confine: "user", root: options.agentDir, maxBytes } });

	const layersByKind: Record<EntryKind, EntryLayer[]> = {
		definition: bundledDefinitions(),
		role: [...loadedSettings.roles],
		persona: [...loadedSettings.personas],
	};
	const toolKinds = loadedSettings.settings.toolKinds;
	for (const kind of KINDS) {
		for (const scope of scopes) layersByKind[kind].push(...loadScopeFiles(kind, { ...scope, toolKinds }, show, { diagnostics, skipped, owners }));
	}

	for (const kind of KINDS) gateVerify(layersByKind[kind], options.projectTrusted, diagnostics);
	const definitions = mergeKind(layersByKind.definition as EntryLayer<"definition">[]);
	const roles = mergeKind(layersByKind.role as EntryLayer<"role">[]);
	const personas = mergeKind(layersByKind.persona as EntryLayer<"persona">[]);

	/** A warning about a whole entry, positioned where its highest layer starts (file or settings key). */
	const entryWarning = (entry: Entry, code: DiagnosticCode, message: string, hint: string): void => {
		const top = entry.layers[0] as EntryLayer;
		const origin = loadedSettings.origins.get(top) ?? { file: top.path, pos: { line: 1, column: 1 } };
		diagnostics.push({ severity: "warning", file: origin.file, line: origin.pos.line, column: origin.pos.column, code, message, hint });
	};
	for (const [key, role] of roles) {
		if (definitions.has(key)) continue;
		const types = [...definitions.values()].map((d) => d.name).join(", ");
		entryWarning(role, "orphan-role", `role ${role.name} matches no definition, so no spawn uses it`, `name the role after a type (${types}), or add a definition named ${role.name}`);
	}
	const typeNames = [...definitions.values()].map((d) => d.name);
	for (const key of loadedSettings.projectTypeKeys) {
		if (definitions.has(nameKey(key.type))) continue;
		const near = suggestKey(key.type, typeNames, "snake");
		diagnostics.push({
			severity: "warning",
			file: key.file,
			line: key.pos.line,
			column: key.pos.column,
			code: "orphan-setting",
			message: `${key.section}.${key.type} names no type, so it has no effect${near ? ` — did you mean ${near.key}?` : ""}`,
			hint: `use a type name (${typeNames.join(", ")}), or remove the entry`,
		});
	}
	const nonePersona = personas.get("none");
	if (nonePersona) {
		entryWarning(nonePersona, "reserved-name", `persona ${nonePersona.name} can never be used: persona "none" means "no persona" in a request or definition`, "rename the persona");
	}

	diagnostics.sort(compareDiagnostics);
	return {
		projectDir,
		agentDir: options.agentDir,
		definitions,
		roles,
		personas,
		settings: loadedSettings.settings,
		diagnostics,
		faults: faultsOf(diagnostics, owners),
		skipped,
	};
}

/**
 * The project scope, unless its `.pi` leaves the project (a symlink pointing out): then one
 * `path-escape` and no project file is read.
 */
function projectFiles(dir: string, show: (path: string) => string, diagnostics: Diagnostic[]): { dir: string; realRoot: string } | null {
	const realRoot = realRootOf(dir);
	const pi = join(dir, ".pi");
	const where = confine(pi, { confine: "project", root: dir, realRoot, maxBytes: 0 });
	if (where.ok) return { dir, realRoot };
	diagnostics.push(readProblemDiagnostic(show(pi), where, "the directory", "no project file is read"));
	return null;
}

function mergeKind<K extends EntryKind>(layers: EntryLayer<K>[]): Map<string, Entry<K>> {
	const byName = new Map<string, EntryLayer<K>[]>();
	for (const layer of layers) {
		const key = nameKey(layer.name);
		const list = byName.get(key);
		if (list) list.push(layer);
		else byName.set(key, [layer]);
	}
	const rank = (scope: Scope) => SCOPE_ORDER.indexOf(scope);
	const out = new Map<string, Entry<K>>();
	for (const [key, list] of byName) {
		list.sort((a, b) => rank(a.scope) - rank(b.scope));
		out.set(key, mergeLayers(list));
	}
	return out;
}

function withoutBody(parsed: RawParse): FrontmatterParse {
	return parsed.ok ? { ok: true, fields: parsed.fields, body: null, bodyLine: 1 } : parsed;
}

function fileDiagnostic(file: string, pos: Pos, code: Diagnostic["code"], message: string, hint: string): Diagnostic {
	return { severity: "error", file, line: pos.line, column: pos.column, code, message, hint };
}

/** What reading a scope's files adds besides layers: diagnostics, `skipped` rows, and what each file describes. */
interface ScopeFindings {
	diagnostics: Diagnostic[];
	skipped: SkippedFile[];
	owners: Map<string, FileOwner>;
}

/** Reads one kind's folder of one scope into layers; skipped files only add diagnostics (or a `skipped` row). */
function loadScopeFiles(kind: EntryKind, scope: FileScope, show: (path: string) => string, findings: ScopeFindings): EntryLayer[] {
	const { diagnostics, skipped, owners } = findings;
	const dir = join(scope.base, KIND_DIRS[kind]);
	const listed = listKindFiles(dir, kind);
	if (listed.length === 0) return [];
	const dirShown = show(dir);
	owners.set(dirShown, { kind, name: null });
	const where = confine(dir, scope.rule);
	if (!where.ok) {
		diagnostics.push(readProblemDiagnostic(dirShown, where, "the directory", "nothing in it is read"));
		return [];
	}
	const showFile = (f: KindFile) => `${dirShown}/${f.path.slice(dir.length + 1)}`;
	for (const f of listed) if (f.stray !== null) reportStray(kind, f, showFile(f), diagnostics, skipped);
	const files = listed.filter((f) => f.stray === null);
	const counts = new Map<string, string[]>();
	for (const f of files) {
		const key = nameKey(f.stem);
		const list = counts.get(key);
		if (list) list.push(showFile(f));
		else counts.set(key, [showFile(f)]);
	}
	const layers: EntryLayer[] = [];
	const start = { line: 1, column: 1 };
	for (const f of files) {
		const file = showFile(f);
		owners.set(file, { kind, name: f.stem });
		// A regular file listed in a confined directory is where the directory really is.
		const knownReal = f.regular ? `${where.path}${sep}${f.path.slice(dir.length + 1)}` : undefined;
		try {
			const layer = loadFile(kind, scope, f, file, knownReal, counts, diagnostics);
			if (layer) layers.push(layer);
		} catch (error) {
			// A safety net: validation is written not to throw, but one file must never stop the load.
			diagnostics.push(fileDiagnostic(file, start, "parse-error", `cannot load the file (${(error as Error).message}); it is skipped`, "report this as a cadre bug"));
		}
	}
	return layers;
}

/** A README is skipped (and listed as such); a file in a format the kind does not read is a warning (ADR 0062). */
function reportStray(kind: EntryKind, f: KindFile, file: string, diagnostics: Diagnostic[], skipped: SkippedFile[]): void {
	if (f.stray === "readme") {
		skipped.push({ path: file, reason: `a README describes the folder; it is never a ${kind}` });
		return;
	}
	diagnostics.push({
		severity: "warning",
		file,
		line: 1,
		column: 1,
		code: "ignored-file",
		message: `${basename(f.path)} is ignored: ${kind}s are Markdown files with a --- frontmatter block, never TOML`,
		hint: `write it as ${f.stem}.md (its keys between --- lines, its text below), or remove it`,
	});
}

/** One file: parse, validate, and return its layer (null when skipped). */
function loadFile(
	kind: EntryKind,
	scope: FileScope,
	f: KindFile,
	file: string,
	knownReal: string | undefined,
	counts: Map<string, string[]>,
	diagnostics: Diagnostic[],
): EntryLayer | null {
	const start = { line: 1, column: 1 };
	const twins = counts.get(nameKey(f.stem)) ?? [];
	if (twins.length > 1) {
		const others = twins.filter((t) => t !== file).join(", ");
		diagnostics.push(
			fileDiagnostic(file, start, "ambiguous-name", `${kind} ${f.stem} is also defined by ${others} (names ignore case); both are skipped`, "keep one file per name"),
		);
		return null;
	}
	const read = readFileUnder(f.path, scope.rule, knownReal);
	if (!read.ok) {
		diagnostics.push(readProblemDiagnostic(file, read, "the file", "it is skipped"));
		return null;
	}
	const text = read.text;
	const isToml = f.ext === ".toml";
	const parsed: FrontmatterParse = isToml ? withoutBody(parseTomlFields(text)) : parseFrontmatter(text);
	if (!parsed.ok) {
		diagnostics.push(
			fileDiagnostic(file, parsed.error.pos, "parse-error", `${parsed.error.message}; the ${kind} file is skipped`, isToml ? "fix the TOML syntax" : "fix the YAML frontmatter between the --- lines"),
		);
		return null;
	}
	const result = validateLayer(kind, parsed.fields, {
		kind,
		file,
		sourcePrefix: file,
		name: f.stem,
		baseDir: dirname(f.path),
		root: scope.root,
		confine: scope.scope,
		maxBytes: scope.rule.maxBytes,
		textInKeys: isToml,
		toolKinds: scope.toolKinds,
	});
	diagnostics.push(...result.diagnostics);
	if (result.skip) return null;
	const body: Sourced<string> | null =
		parsed.body === null ? result.text : { value: parsed.body, source: `${file}:${parsed.bodyLine}` };
	return { kind, name: f.stem, scope: scope.scope, path: file, body, keys: result.keys, invalid: result.invalid, unread: result.unread };
}
