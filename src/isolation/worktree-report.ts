/**
 * The human rendering of cadre's worktree administration (spec 05 "Applying back"): the listing,
 * the outcome of an apply and of the merge queue, and what a clean removed or kept. Pure text over the results of
 * `worktree-admin.ts`, shared by `cadre worktrees` and pi's `/subagents worktrees`.
 */
import { dirname } from "node:path";
import type { ApplyResult, CadreWorktreeEntry, CleanResult, WorktreeListing } from "./worktree-admin.ts";
import type { PooledWorktree } from "./worktree-pool.ts";
import { verifyLine } from "../runtime/verify.ts";
import type { MergeQueueResult, QueueStep } from "./merge-queue.ts";
import { ownerWords, recoveredWords } from "./worktree-recovery.ts";

function describeState(entry: CadreWorktreeEntry): string {
	if (!entry.locked) return stateWord(entry);
	return `${stateWord(entry)}, ${entry.interrupted ? "interrupted" : "in use"}`;
}

/** The APPLIED column: `yes` only for a branch that holds work and is merged. */
function appliedWord(entry: CadreWorktreeEntry): string {
	if (!entry.branch) return "-";
	if (!entry.hasWork) return "no work";
	return entry.applied ? "yes" : "no";
}

function stateWord(entry: CadreWorktreeEntry): string {
	switch (entry.state) {
		case "applied":
			return "applied";
		case "unapplied":
			return "not applied";
		case "empty":
			return "no work";
		case "kept":
			return entry.ignored.length > 0 ? `kept (${entry.ignored.length} ignored)` : "kept";
		case "dirty":
			return `uncommitted (${entry.uncommitted.length})`;
		case "stale":
			return "stale record";
	}
}

/** One line about the worktree pool, or null when it has nothing. */
function poolLine(pool: PooledWorktree[]): string | null {
	if (pool.length === 0) return null;
	const count = (state: PooledWorktree["state"]) => pool.filter((p) => p.state === state).length;
	const parts = [`${count("idle")} idle`];
	if (count("busy") > 0) parts.push(`${count("busy")} being prepared or returned`);
	if (count("interrupted") > 0) parts.push(`${count("interrupted")} left half-prepared by a pi that ended (clean removes them)`);
	return `Pool: ${parts.join(", ")} in ${dirname(pool[0]?.path ?? "")}.`;
}

/** Aligned columns: ID, STATE, APPLIED, COMMIT, WORKTREE / SUBJECT. */
export function renderListing(listing: WorktreeListing, tty: boolean): string {
	const pool = poolLine(listing.pool ?? []);
	if (listing.entries.length === 0) return `No cadre worktrees or branches in ${listing.repoRoot}.\n${pool ? `${pool}\n` : ""}`;
	const rows = [["ID", "STATE", "APPLIED", "COMMIT", "WORKTREE / SUBJECT"]];
	for (const entry of listing.entries) {
		rows.push([
			entry.id,
			describeState(entry),
			appliedWord(entry),
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
		if (entry.interrupted) notes.push(`${entry.id}: interrupted: ${ownerWords(entry.owner)}; \`cadre worktrees clean\` commits its work to ${entry.branch ?? `cadre/${entry.id}`}`);
		if (entry.ignored.length > 0) notes.push(`${entry.id}: ignored files kept in the worktree: ${entry.ignored.join(", ")}`);
		if (entry.uncommitted.length > 0) notes.push(`${entry.id}: not on the branch: ${entry.uncommitted.join(", ")}`);
	}
	const footer = `Current branch: ${listing.currentBranch ?? "(detached HEAD)"}. Apply with \`cadre worktrees apply ID\`; remove leftovers with \`cadre worktrees clean\`.`;
	return `${[...lines, ...(notes.length ? ["", ...notes] : []), ...(pool ? ["", pool] : []), "", footer].join("\n")}\n`;
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
	for (const r of cleaned.recovered) lines.push(`recovered  ${r.id}  ${r.worktreePath}  (interrupted run: ${recoveredWords(r)})`);
	for (const r of cleaned.removed) lines.push(`removed  ${r.id}  ${r.path}`);
	for (const k of cleaned.kept) lines.push(`kept     ${k.id}  ${k.path}  (${k.reason})`);
	for (const b of cleaned.deletedBranches) lines.push(`deleted  ${b}  (${cleaned.emptyBranches.includes(b) ? "it held no work" : "already applied"})`);
	for (const b of cleaned.unappliedBranches) lines.push(`branch   ${b}  not applied yet: apply it, or delete it with git branch -D ${b}`);
	for (const path of cleaned.pool?.removed ?? []) lines.push(`removed  pool  ${path}  (pooled, idle)`);
	for (const k of cleaned.pool?.kept ?? []) lines.push(`kept     pool  ${k.path}  (${k.reason})`);
	if (lines.length === 0) lines.push("Nothing to clean.");
	return `${lines.join("\n")}\n`;
}

function queueStepLine(s: QueueStep): string {
	const verify = s.verify ? `; ${verifyLine(s.verify)}` : "";
	if (s.outcome === "applied") return `applied  ${s.branch}  ${s.fastForward ? "fast-forward" : "merged"} to ${s.commit?.slice(0, 10)}${s.diffStat ? ` (${s.diffStat.summary})` : ""}${verify}`;
	if (s.outcome === "already-applied") return `already  ${s.branch}  (already contained)`;
	return `STOPPED  ${s.branch}  ${s.outcome}: ${s.message}${verify}`;
}

/** The merge queue's report: the order, each step, the verify output of a failing step, what was left out. */
export function renderQueue(q: MergeQueueResult): string {
	const lines: string[] = [];
	if (q.outcome === "dry-run") {
		q.queue.forEach((b, i) => lines.push(`${i + 1}. ${b.branch}  finished ${b.finishedAt}  ${b.subject ?? ""}  verify: ${b.verify ? `\`${b.verify.command}\` (${b.verify.source})` : "none"}`.trimEnd()));
	}
	for (const s of q.steps) lines.push(queueStepLine(s));
	const failed = q.steps.find((s) => s.outcome === "verify-failed");
	if (failed?.verify) lines.push("", `verify output (end):`, ...failed.verify.outputTail.split("\n").map((l) => `  ${l}`));
	for (const s of q.skipped) lines.push(`skipped  cadre/${s.id}  (${s.reason})`);
	lines.push(q.message);
	if (q.hint) lines.push(q.hint);
	return `${lines.join("\n")}\n`;
}
