/**
 * `cadre import` (ADR 0094): finds another tool's agent files (its usual places, or the paths
 * given), reads each through the one confined reader, converts every agent, checks the cadre file
 * with cadre's own loader (dropping what it would reject), and writes it — never over a different
 * file without `force`, never outside the scope, and not at all with `dryRun`. Returns the report.
 */
import { lstatSync } from "node:fs";
import { basename, dirname, extname, join, relative, resolve, sep } from "node:path";
import type { Diagnostic } from "../core/diagnostics.ts";
import { displayPath, KIND_DIRS, KIND_EXTENSIONS } from "../files/discovery.ts";
import { type ForeignFormat, type ForeignPlace, foreignPlaces, type ImportSource, listPlaceFiles, type PlaceDirs, type PlaceFile } from "../files/foreign-places.ts";
import { isInside } from "../files/read-confined.ts";
import type { EntryKind } from "../files/types.ts";
import { type CadreFormat, checkCadreFile, renderCadreFile } from "./cadre-file.ts";
import { type ConvertContext, convertAgent, type Converted } from "./convert.ts";
import type { ModelResolver } from "./field-values.ts";
import { type ForeignAgent, parseForeign } from "./parse-foreign.ts";
import { readForeignFile } from "./read-foreign.ts";
import { type FileReport, type ImportReport, summarize } from "./report.ts";
import { currentText, sameNamedFiles, targetFolder, writeAtomically } from "./write-file.ts";

export interface ImportOptions {
	source: ImportSource;
	scope: "project" | "user";
	dryRun: boolean;
	force: boolean;
	/** Files or folders to read instead of the usual places (absolute). */
	paths: readonly string[];
	dirs: PlaceDirs;
	/** Builds pi's model resolver; called only when some agent names a model. */
	models: () => Promise<ModelResolver>;
}

/** One foreign file to read, with what it holds and the root it must stay inside. */
interface Input {
	path: string;
	stem: string;
	kind: EntryKind;
	format: ForeignFormat;
	root: string;
	/** How `root` confines it: a project file by real path, a file in the home as written. */
	confine: "project" | "user";
}

/** Runs an import and returns its report. */
export async function runImport(options: ImportOptions): Promise<ImportReport> {
	const { dirs } = options;
	const show = (path: string) => displayPath(path, dirs.projectDir);
	const targetRoot = options.scope === "project" ? dirs.projectDir : dirs.agentDir;
	const targetBase = options.scope === "project" ? [".pi"] : [];
	const { inputs, searched } = findInputs(options);
	const files: FileReport[] = [];
	const parsed: { input: Input & { text: string }; agents: ForeignAgent[] }[] = [];
	for (const input of inputs) {
		const read = readForeignFile(input.path, input.root, input.confine);
		if (!read.ok) {
			files.push(skipped(show(input.path), input.kind, `cadre does not read it: ${read.why}`));
			continue;
		}
		const result = parseForeign(read.text, input.format, input.kind, input.stem);
		if (!result.ok) files.push(skipped(`${show(input.path)}:${result.line}:${result.column}`, input.kind, `it cannot be parsed: ${result.message}`));
		else parsed.push({ input: { ...input, text: read.text }, agents: result.agents });
	}
	const namesModel = parsed.some(({ agents }) => agents.some((agent) => agent.fields.some((f) => f.key === "model")));
	const models = namesModel ? await options.models() : null;
	const taken = new Map<string, string>();
	for (const { input, agents } of parsed) {
		for (const agent of agents) {
			const from = agent.entry === null ? show(input.path) : `${show(input.path)}#agent.${agent.entry}`;
			try {
				files.push(importAgent(agent, input, from, { ...options, models, targetRoot, targetBase, show, taken }));
			} catch (error) {
				// A safety net: conversion is written not to throw, but one agent must never stop the others.
				files.push(skipped(from, agent.kind, `cannot convert it (${(error as Error).message}); report this as a cadre bug`));
			}
		}
	}
	const summary = summarize(files);
	return {
		// A file not imported on purpose (opencode's primary agents) is no failure.
		ok: files.every((f) => f.action !== "conflict" && (f.action !== "skip" || f.reason?.startsWith(NOT_IMPORTED) === true)),
		source: options.source,
		scope: options.scope,
		dryRun: options.dryRun,
		force: options.force,
		target: show(join(targetRoot, ...targetBase)),
		searched: searched.map(show),
		files,
		summary,
	};
}

const NOT_IMPORTED = "not imported: ";

function skipped(from: string, kind: EntryKind, reason: string): FileReport {
	return { from, to: null, kind, name: null, action: "skip", written: false, reason, fields: [], diagnostics: [] };
}

/** The files to read: the given paths, or every file of the source's places in the scope. */
function findInputs(options: ImportOptions): { inputs: Input[]; searched: string[] } {
	if (options.paths.length === 0) {
		const places = foreignPlaces(options.source, options.dirs, options.scope);
		const inputs = places.flatMap((place) => listPlaceFiles(place).map((file) => inputOf(place, file)));
		return { inputs: dedupe(inputs), searched: places.map((place) => place.path) };
	}
	const inputs: Input[] = [];
	for (const path of options.paths) {
		let isDir = false;
		try {
			isDir = lstatSync(path).isDirectory();
		} catch {
			isDir = false;
		}
		const root = isInside(path, options.dirs.projectDir) ? options.dirs.projectDir : isDir ? path : dirname(path);
		if (!isDir) {
			inputs.push({ path, stem: basename(path, extname(path)), kind: kindOf(options.source, dirname(path)), format: formatOf(path), root, confine: "project" });
			continue;
		}
		for (const format of formatsOf(options.source)) {
			const place: ForeignPlace = { source: options.source, scope: options.scope, kind: kindOf(options.source, path), format, path, root, recursive: true, cadreOwn: false };
			inputs.push(...listPlaceFiles(place).map((file) => inputOf(place, file)));
		}
	}
	return { inputs: dedupe(inputs), searched: [...options.paths] };
}

const inputOf = (place: ForeignPlace, file: PlaceFile): Input => ({
	path: file.path,
	stem: file.stem,
	kind: place.kind,
	format: place.format,
	root: place.root,
	confine: place.scope === "user" ? "user" : "project",
});

function dedupe(inputs: Input[]): Input[] {
	const seen = new Set<string>();
	return inputs.filter((input) => !seen.has(input.path) && Boolean(seen.add(input.path)));
}

/** grok-build keeps personas and roles in folders of those names. */
function kindOf(source: ImportSource, dir: string): EntryKind {
	if (source !== "grok") return "definition";
	const name = basename(dir).toLowerCase();
	return name === "personas" ? "persona" : name === "roles" ? "role" : "definition";
}

function formatOf(path: string): ForeignFormat {
	const lower = path.toLowerCase();
	return lower.endsWith(".toml") ? "toml" : lower.endsWith(".json") ? "opencode-json" : "markdown";
}

function formatsOf(source: ImportSource): ForeignFormat[] {
	return source === "codex" ? ["toml"] : source === "grok" ? ["markdown", "toml"] : ["markdown"];
}

interface AgentRun extends Omit<ImportOptions, "models"> {
	models: ModelResolver;
	targetRoot: string;
	targetBase: string[];
	show: (path: string) => string;
	/** Names imported in this run (name key → from), so two files never write one cadre file. */
	taken: Map<string, string>;
}

/** Converts, checks and writes one agent. */
function importAgent(agent: ForeignAgent, input: Input & { text: string }, from: string, run: AgentRun): FileReport {
	const folder = targetFolder(run.targetRoot, [...run.targetBase, KIND_DIRS[agent.kind]], run.dryRun);
	const dir = folder.ok ? folder.dir : join(run.targetRoot, ...run.targetBase, KIND_DIRS[agent.kind]);
	const converted = convertAgent(agent, contextFor(input, dir, run));
	const report: FileReport = { from, to: null, kind: agent.kind, name: converted.name, action: "skip", written: false, reason: null, fields: converted.fields, diagnostics: [] };
	if (converted.skip !== null) return { ...report, reason: `${NOT_IMPORTED}${converted.skip}` };
	if (!folder.ok) return { ...report, reason: folder.why };
	const format: CadreFormat = input.format === "toml" && agent.kind !== "definition" ? "toml" : "markdown";
	// Places are listed in the other tool's own order: the first file of a name is the one it reads.
	const taken = `${agent.kind}:${converted.name.toLowerCase()}`;
	const twin = run.taken.get(taken);
	if (twin !== undefined) return { ...report, reason: `${NOT_IMPORTED}${twin} has the same name and comes first, so that one is imported` };
	run.taken.set(taken, from);
	const ext = format === "toml" ? ".toml" : ".md";
	const existing = sameNamedFiles(dir, converted.name, KIND_EXTENSIONS[agent.kind]);
	const path = existing[0] ?? join(dir, `${converted.name}${ext}`);
	const shown = run.show(path);
	if (existing.length > 1 || (existing[0] && !existing[0].endsWith(ext))) {
		return { ...report, to: shown, action: "conflict", reason: `${existing.map(run.show).join(" and ")} already ${existing.length > 1 ? "name" : "names"} ${agent.kind} ${converted.name} in another form; rename or remove it first` };
	}
	const confine = run.scope === "user" ? "user" : "project";
	const place = { file: shown, name: basename(path, extname(path)), baseDir: dir, root: run.targetRoot, confine } as const;
	const { text, diagnostics } = verbatim(input.text, converted, format, place) ?? checkedText(converted, format, place);
	const current = currentText(path, run.targetRoot, confine);
	if (!current.ok) return { ...report, to: shown, action: "conflict", reason: `${shown}: ${current.why}`, diagnostics };
	const done = { ...report, to: shown, diagnostics };
	if (current.text === text) return { ...done, action: "unchanged" };
	if (current.text !== null && !run.force) {
		const inPlace = resolve(path) === resolve(input.path) ? " (it is the file imported, already where cadre reads it)" : "";
		return { ...done, action: "conflict", reason: `${shown} exists and differs${inPlace}; run with --force to overwrite it` };
	}
	const action = current.text === null ? "create" : "overwrite";
	if (run.dryRun) return { ...done, action };
	const written = writeAtomically(path, text);
	return written.ok ? { ...done, action, written: true } : { ...done, action: "skip", reason: `${shown}: ${written.why}` };
}

/** Reads files an agent points to, relative to it and inside its root; rebases them for the target. */
function contextFor(input: Input, targetDir: string, run: AgentRun): ConvertContext {
	return {
		source: run.source,
		models: run.models,
		readReferenced(written) {
			const path = resolve(dirname(input.path), written);
			const read = readForeignFile(path, input.root, input.confine);
			return read.ok ? { ok: true, text: read.text, path } : { ok: false, why: read.why };
		},
		rebase(path) {
			if (!isInside(path, run.targetRoot)) return null;
			return relative(targetDir, path).split(sep).join("/");
		},
	};
}

/**
 * A grok-build persona or role in TOML as it is: cadre reads grok-build's keys natively, so when
 * every field is mapped unchanged the file is copied byte for byte (comments and all) and the
 * import only reports. Null when something must change, or cadre's loader would reject the copy.
 */
function verbatim(source: string, converted: Converted, format: CadreFormat, place: Parameters<typeof checkCadreFile>[3]): { text: string; diagnostics: Diagnostic[] } | null {
	if (format !== "toml" || !converted.fields.every((f) => f.outcome === "mapped")) return null;
	const checked = checkCadreFile(source, converted.kind, format, place);
	return checked.diagnostics.some((d) => d.severity === "error") ? null : { text: source, diagnostics: checked.diagnostics };
}

/**
 * The file's text after cadre's loader has checked it: a key the loader rejects is dropped (the
 * report says why) and the file rendered again, so what is written has no error.
 */
function checkedText(converted: Converted, format: CadreFormat, place: Parameters<typeof checkCadreFile>[3]): { text: string; diagnostics: Diagnostic[] } {
	let keys = converted.keys;
	for (;;) {
		const text = renderCadreFile(converted.kind, format, keys, converted.text, converted.comments);
		const checked = checkCadreFile(text, converted.kind, format, place);
		const errors = checked.diagnostics.filter((d) => d.severity === "error");
		const bad = new Set(errors.map((d) => checked.keyAt(d.line)).filter((key): key is string => key !== null && keys.some(([k]) => k === key)));
		if (errors.length === 0 || bad.size === 0) return { text, diagnostics: checked.diagnostics };
		for (const key of bad) {
			const error = errors.find((d) => checked.keyAt(d.line) === key) as Diagnostic;
			const why = `cadre check would reject it: ${error.message}`;
			const fix = error.hint ?? "fix the value in the cadre file";
			const reports = converted.fields.filter((f) => f.written?.startsWith(`${key}: `));
			if (reports.length === 0) converted.fields.push({ key, line: null, column: null, outcome: "dropped", written: null, why, fix });
			for (const f of reports) Object.assign(f, { outcome: "dropped", written: null, why, fix });
		}
		keys = keys.filter(([key]) => !bad.has(key));
	}
}
