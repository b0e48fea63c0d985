/**
 * `cadre runs list` (issue 19): the runs `cadre run` recorded (`<agentDir>/cadre/transcripts`, the
 * directory `--resume` looks in), newest first — id, type, state, age, description — so a user can
 * find the id to continue. Reads record files only, never pi's SDK.
 */
import { join } from "node:path";
import { formatDiagnostic } from "../../core/diagnostics.ts";
import { safeFields, safeLine } from "../../core/terminal-text.ts";
import { agentDirFrom } from "../../files/discovery.ts";
import { listRuns } from "../../runtime/run-reader.ts";
import { type CliIo, EXIT_OK } from "./io.ts";
import { inTreeOrder, treeIndent } from "../../runtime/run-tree.ts";
import type { RunRecord } from "../../runtime/runs.ts";
import { alignColumns, cliHome } from "./list-command.ts";
import type { CommonOptions } from "./options.ts";
import { counted } from "./plural.ts";

/** How long ago `then` was, as `45s`, `12m`, `3h`, `2d`. */
export function age(then: number, now: number): string {
	const s = Math.max(0, Math.round((now - then) / 1000));
	if (s < 60) return `${s}s`;
	if (s < 3600) return `${Math.floor(s / 60)}m`;
	if (s < 86_400) return `${Math.floor(s / 3600)}h`;
	return `${Math.floor(s / 86_400)}d`;
}

/** The directory `cadre run` keeps its records in (and `--resume` reads). */
export function cliRecordsDir(io: CliIo): string {
	return join(agentDirFrom(io.env, cliHome(io)), "cadre", "transcripts");
}

export async function runRunsList(opts: CommonOptions, io: CliIo, now: number = Date.now()): Promise<number> {
	const dir = cliRecordsDir(io);
	const { runs, diagnostics } = listRuns(dir);
	const newest = [...runs].reverse();
	if (opts.json) {
		const rows = newest.map((r) => ({ id: r.id, type: r.type, state: r.state, createdAt: r.createdAt, endedAt: r.endedAt ?? null, description: r.description, parentId: r.parentId, depth: r.depth }));
		io.out(`${JSON.stringify({ dir, runs: rows, diagnostics }, null, 2)}\n`);
		return EXIT_OK;
	}
	for (const d of safeFields(diagnostics)) io.err(`${formatDiagnostic(d)}\n`);
	if (newest.length === 0) {
		io.out(`no runs recorded in ${safeLine(dir)} (cadre run records its runs there)\n`);
		return EXIT_OK;
	}
	// newest tree first; under each run, the runs it started, indented (issue 21)
	const ids = new Set(runs.map((r) => r.id));
	const trees: RunRecord[][] = [];
	for (const r of inTreeOrder(runs)) {
		const top = !r.parentId || r.parentId === r.id || !ids.has(r.parentId);
		if (top || trees.length === 0) trees.push([r]);
		else trees[trees.length - 1]?.push(r);
	}
	const ordered = trees.reverse().flat();
	const rows = [["ID", "TYPE", "STATE", "AGE", "DESCRIPTION"], ...ordered.map((r) => [`${treeIndent(r.depth)}${r.id}`, safeLine(r.type), r.state, age(r.createdAt, now), safeLine(r.description)])];
	for (const line of alignColumns(rows)) io.out(`${line}\n`);
	io.out(`${counted(newest.length, "run")} in ${safeLine(dir)}; continue one with: cadre run --resume ID "task"\n`);
	return EXIT_OK;
}
