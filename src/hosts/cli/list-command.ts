/**
 * `cadre list` (spec 06): every definition, role and persona with its scope, source path, enabled
 * state and what it shadows. Loads files only — never pi's SDK — so it starts fast.
 */
import { statSync } from "node:fs";
import { homedir } from "node:os";
import { resolve } from "node:path";
import { type Diagnostic, formatDiagnostic } from "../../core/diagnostics.ts";
import { dim, safeFields, safeLine } from "../../core/terminal-text.ts";
import { describeEntry } from "../../files/describe.ts";
import { nameKey } from "../../core/values.ts";
import { agentDirFrom, displayPath, findGitRoot } from "../../files/discovery.ts";
import { foreignFileNotices } from "../../files/foreign-places.ts";
import { loadAll } from "../../files/load.ts";
import { isEnabled } from "../../resolve/resolve.ts";
import type { Entry, EntryKind, LoadResult, Scope } from "../../files/types.ts";
import { type CliIo, EXIT_OK, UsageError } from "./io.ts";
import type { CommonOptions } from "./options.ts";

/** One row of `cadre list --json` (docs/cli-list-check.md). */
export interface ListedEntry {
	name: string;
	kind: EntryKind;
	scope: Scope;
	/** Display path of the highest-priority layer (`settings:<path>` inline, `bundled` built-in). */
	path: string;
	/** Definitions: `enabled` after the settings `toggle`; roles and personas are always enabled. */
	enabled: boolean;
	description: string;
	/** The lower layers this entry overrides (key by key), highest first. */
	shadows: { scope: Scope; path: string }[];
}

/** Loads the files the way `list` and `check` do: from `--cwd`, untrusted, pi's agent dir. */
export function loadForCli(opts: CommonOptions, io: CliIo): LoadResult {
	const cwd = cliCwd(opts, io);
	const homeDir = cliHome(io);
	return loadAll({ cwd, agentDir: agentDirFrom(io.env, homeDir), homeDir, projectTrusted: false });
}

/** The user's home as the command sees it: `HOME` when set, else the system's. */
export function cliHome(io: CliIo): string {
	return io.env.HOME && io.env.HOME !== "" ? io.env.HOME : homedir();
}

/** `--cwd` as an existing directory (a usage error otherwise). */
export function cliCwd(opts: CommonOptions, io: CliIo): string {
	const cwd = resolve(io.cwd, opts.cwd ?? ".");
	let isDir = false;
	try {
		isDir = statSync(cwd).isDirectory();
	} catch {
		isDir = false;
	}
	if (!isDir) throw new UsageError(`--cwd ${opts.cwd ?? cwd} is not a directory`);
	return cwd;
}

/**
 * Other tools' agent files near the project and in the user's home that no cadre entry replaces:
 * one `foreign-files` info per tool and scope (ADR 0096). Reads folders only, never pi's SDK.
 */
export function foreignNotices(loaded: LoadResult, opts: CommonOptions, io: CliIo): Diagnostic[] {
	const cwd = cliCwd(opts, io);
	const homeDir = cliHome(io);
	const projectDir = loaded.projectDir ?? findGitRoot(cwd) ?? cwd;
	const maps: Record<EntryKind, Map<string, Entry>> = { definition: loaded.definitions, role: loaded.roles, persona: loaded.personas };
	const known = (kind: EntryKind, name: string) => maps[kind].has(nameKey(name));
	return foreignFileNotices({ projectDir, homeDir, agentDir: loaded.agentDir, env: io.env }, known, (path) => displayPath(path, projectDir));
}

/** The rows of `cadre list`, definitions then roles then personas, each sorted by name. */
export function listEntries(loaded: LoadResult): ListedEntry[] {
	const rows: ListedEntry[] = [];
	const maps: Map<string, Entry>[] = [loaded.definitions, loaded.roles, loaded.personas];
	for (const map of maps) {
		const entries = [...map.values()].sort((a, b) => (a.name.toLowerCase() < b.name.toLowerCase() ? -1 : 1));
		for (const entry of entries) {
			rows.push({
				name: entry.name,
				kind: entry.kind,
				scope: entry.scope,
				path: entry.path,
				enabled: entry.kind !== "definition" || isEnabled(entry as Entry<"definition">, loaded),
				description: describeEntry(entry),
				shadows: entry.layers.slice(1).map((layer) => ({ scope: layer.scope, path: layer.path })),
			});
		}
	}
	return rows;
}

/** Pads columns to equal width (the last column is not padded). */
export function alignColumns(rows: string[][]): string[] {
	const widths: number[] = [];
	for (const row of rows) row.forEach((cell, i) => (widths[i] = Math.max(widths[i] ?? 0, cell.length)));
	return rows.map((row) => row.map((cell, i) => (i === row.length - 1 ? cell : cell.padEnd(widths[i] ?? 0))).join("  ").trimEnd());
}

/** Whether to colour: only on a terminal, and never with NO_COLOR. */
export function useColor(io: CliIo): boolean {
	return io.isTty && !io.env.NO_COLOR;
}

/** Counts for the "run `cadre check`" line. */
export function problemSummary(diagnostics: Diagnostic[]): string {
	const errors = diagnostics.filter((d) => d.severity === "error").length;
	const warnings = diagnostics.filter((d) => d.severity === "warning").length;
	const parts = [`${errors} error${errors === 1 ? "" : "s"}`, `${warnings} warning${warnings === 1 ? "" : "s"}`];
	return parts.join(", ");
}

export async function runList(opts: CommonOptions, io: CliIo): Promise<number> {
	const loaded = loadForCli(opts, io);
	const rows = listEntries(loaded);
	const notices = foreignNotices(loaded, opts, io);
	if (opts.json) {
		const diagnostics = [...loaded.diagnostics, ...notices];
		io.out(`${JSON.stringify({ projectDir: loaded.projectDir, agentDir: loaded.agentDir, entries: rows, skipped: loaded.skipped, diagnostics }, null, 2)}\n`);
		return EXIT_OK;
	}
	const color = useColor(io);
	const table = [
		["NAME", "KIND", "SCOPE", "ENABLED", "SOURCE", "SHADOWS"],
		// Names and paths come from the repository: shown escaped, one line each (ADR 0075).
		...safeFields(rows).map((r) => [
			r.name,
			r.kind,
			r.scope,
			r.enabled ? "yes" : "no",
			r.path,
			r.shadows.length === 0 ? "-" : r.shadows.map((s) => s.path).join(", "),
		]),
	];
	const lines = alignColumns(table);
	io.out(`${lines.map((line, i) => (i === 0 && color ? dim(line) : line)).join("\n")}\n`);
	for (const skipped of loaded.skipped) {
		const line = `skipped: ${safeLine(skipped.path)} (${skipped.reason})`;
		io.out(`${color ? dim(line) : line}\n`);
	}
	if (loaded.diagnostics.length > 0) {
		io.err(`${problemSummary(loaded.diagnostics)} while loading — run \`cadre check\` for details\n`);
	}
	for (const notice of safeFields(notices)) io.err(`${formatDiagnostic(notice)}\n`);
	return EXIT_OK;
}
