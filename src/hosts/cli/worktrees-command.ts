/**
 * `cadre worktrees list | apply ID | clean` (spec 06, 05 "Applying back"): a thin rendering of the
 * worktree administration functions in `src/runtime/worktree-admin.ts`. `--json` prints the
 * functions' results as documented in docs/cli-worktrees.md.
 */
import { resolve } from "node:path";
import {
	type AdminFailure,
	type ApplyResult,
	applyCadreWorktree,
	type CadreWorktreeEntry,
	type CleanResult,
	cleanCadreWorktrees,
	listCadreWorktrees,
	type WorktreeListing,
} from "../../runtime/worktree-admin.ts";
import { EXIT_FAILED, EXIT_OK, type CliIo, UsageError } from "./io.ts";
import type { CommonOptions } from "./main.ts";

/** Runs one `cadre worktrees` action and returns the exit code. */
export async function runWorktrees(
	action: "list" | "apply" | "clean",
	id: string | null,
	opts: CommonOptions,
	io: CliIo,
): Promise<number> {
	const cwd = resolve(io.cwd, opts.cwd ?? ".");
	if (action === "list") {
		const listing = await listCadreWorktrees(cwd);
		if (opts.json) return printJson(io, listing);
		if (!listing.ok) return printFailure(io, listing);
		io.out(renderListing(listing, io.isTty));
		return EXIT_OK;
	}
	if (action === "apply") {
		if (!id) throw new UsageError("worktrees apply needs the run id");
		const applied = await applyCadreWorktree({ cwd, id });
		if (opts.json) return printJson(io, applied);
		io[applied.ok ? "out" : "err"](renderApply(applied));
		return applied.ok ? EXIT_OK : EXIT_FAILED;
	}
	const cleaned = await cleanCadreWorktrees(cwd);
	if (opts.json) return printJson(io, cleaned);
	if (!cleaned.ok) return printFailure(io, cleaned);
	io.out(renderClean(cleaned));
	return EXIT_OK;
}

function printJson(io: CliIo, value: { ok: boolean }): number {
	io.out(`${JSON.stringify(value, null, 2)}\n`);
	return value.ok ? EXIT_OK : EXIT_FAILED;
}

function printFailure(io: CliIo, failure: AdminFailure): number {
	io.err(`cadre: ${failure.message}\n  ${failure.hint}\n`);
	return EXIT_FAILED;
}

function describeState(entry: CadreWorktreeEntry): string {
	switch (entry.state) {
		case "applied":
			return "applied";
		case "unapplied":
			return "not applied";
		case "kept":
			return entry.ignored.length > 0 ? `kept (${entry.ignored.length} ignored)` : "kept";
		case "dirty":
			return `uncommitted (${entry.uncommitted.length})`;
		case "stale":
			return "stale record";
	}
}

/** Aligned columns: ID, STATE, APPLIED, COMMIT, WORKTREE / SUBJECT. */
export function renderListing(listing: WorktreeListing, tty: boolean): string {
	if (listing.entries.length === 0) return `No cadre worktrees or branches in ${listing.repoRoot}.\n`;
	const rows = [["ID", "STATE", "APPLIED", "COMMIT", "WORKTREE / SUBJECT"]];
	for (const entry of listing.entries) {
		rows.push([
			entry.id,
			describeState(entry),
			entry.branch ? (entry.applied ? "yes" : "no") : "-",
			entry.commit ? entry.commit.slice(0, 10) : "-",
			entry.worktreePath ?? entry.subject ?? "",
		]);
	}
	const widths = rows[0]!.map((_, column) => Math.max(...rows.map((row) => (row[column] ?? "").length)));
	const lines = rows.map((row, index) => {
		const line = row
			.map((cell, column) => (column === row.length - 1 ? cell : cell.padEnd(widths[column] ?? 0)))
			.join("  ")
			.trimEnd();
		return tty && index === 0 ? `\u001b[1m${line}\u001b[0m` : line;
	});
	const notes: string[] = [];
	for (const entry of listing.entries) {
		if (entry.ignored.length > 0) notes.push(`${entry.id}: ignored files kept in the worktree: ${entry.ignored.join(", ")}`);
		if (entry.uncommitted.length > 0) notes.push(`${entry.id}: not on the branch: ${entry.uncommitted.join(", ")}`);
	}
	const footer = `Current branch: ${listing.currentBranch ?? "(detached HEAD)"}. Apply with \`cadre worktrees apply ID\`; remove leftovers with \`cadre worktrees clean\`.`;
	return `${[...lines, ...(notes.length ? ["", ...notes] : []), "", footer].join("\n")}\n`;
}

export function renderApply(applied: ApplyResult): string {
	const lines = [applied.message];
	if (applied.outcome === "applied") {
		lines.push(
			`${applied.fastForward ? "Fast-forwarded" : "Merged"} to ${applied.commit?.slice(0, 12)}${applied.diffStat ? `: ${applied.diffStat.summary}` : ""}.`,
		);
	}
	if (applied.hint) lines.push(applied.hint);
	return `${lines.join("\n")}\n`;
}

export function renderClean(cleaned: CleanResult): string {
	const lines: string[] = [];
	for (const r of cleaned.removed) lines.push(`removed  ${r.id}  ${r.path}`);
	for (const k of cleaned.kept) lines.push(`kept     ${k.id}  ${k.path}  (${k.reason})`);
	for (const b of cleaned.deletedBranches) lines.push(`deleted  ${b}  (already applied)`);
	for (const b of cleaned.unappliedBranches) lines.push(`branch   ${b}  not applied yet: apply it, or delete it with git branch -D ${b}`);
	if (lines.length === 0) lines.push("Nothing to clean.");
	return `${lines.join("\n")}\n`;
}
