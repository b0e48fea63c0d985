/**
 * The worktree report of one run, for the conversation viewer's `w` key (issue 11 item 4): what its
 * isolation step reported (branch, worktree, base, the summary with any escape warning) and, when
 * the parent's repository still has it, the branch's state as `/subagents worktrees` lists it.
 * Plain text; the viewer makes it safe and wraps it.
 */
import type { RunRecord } from "../../../runtime/runs.ts";
import { type CadreWorktreeEntry, listCadreWorktrees } from "../../../isolation/worktree-admin.ts";

function field(report: Record<string, unknown>, key: string): string | null {
	const value = report[key];
	return typeof value === "string" && value !== "" ? value : null;
}

/** The report's text for a run and its worktree's listing entry (null when git has none). */
export function worktreeReportText(run: RunRecord, entry: CadreWorktreeEntry | null): string {
	const report = run.isolation;
	if (!report) return `${run.id} has no worktree (isolation: ${run.config.isolation}).`;
	const lines = [`Worktree report of ${run.id}`, ""];
	for (const [label, key] of [
		["isolation", "isolation"],
		["branch", "branch"],
		["worktree", "worktreePath"],
		["base", "base"],
	] as const) {
		const value = field(report, key);
		if (value) lines.push(`${label}: ${value}`);
	}
	const summary = field(report, "summary");
	if (summary) lines.push("", summary);
	const escaped = report.escapedPaths;
	if (Array.isArray(escaped) && escaped.length > 0) lines.push("", `written outside the worktree: ${escaped.join(", ")}`);
	if (entry) {
		const lock = entry.interrupted ? " (interrupted: its run's process is gone; /subagents worktrees clean recovers its work)" : entry.locked ? " (in use)" : "";
		lines.push("", `state: ${entry.state}${lock}; applied: ${entry.applied ? "yes" : "no"}`);
		if (entry.commit) lines.push(`tip: ${entry.commit.slice(0, 10)} ${entry.subject ?? ""}`.trimEnd());
		if (entry.uncommitted.length > 0) lines.push(`not on the branch: ${entry.uncommitted.join(", ")}`);
		if (entry.ignored.length > 0) lines.push(`ignored files kept: ${entry.ignored.join(", ")}`);
		if (!entry.applied && entry.branch) lines.push("", `Apply it with /subagents worktrees apply ${entry.id}.`);
	}
	return lines.join("\n");
}

/** The report of a run, reading its worktree's state from the parent's repository. */
export async function runWorktreeReport(run: RunRecord, cwd: string): Promise<string> {
	const branch = run.isolation ? field(run.isolation, "branch") : null;
	if (!branch) return worktreeReportText(run, null);
	const listing = await listCadreWorktrees(cwd);
	const id = branch.replace(/^cadre\//, "");
	const entry = listing.ok ? (listing.entries.find((candidate) => candidate.id === id) ?? null) : null;
	return worktreeReportText(run, entry);
}
