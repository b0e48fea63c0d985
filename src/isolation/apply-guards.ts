/**
 * What must hold before cadre moves the parent's branch (`cadre worktrees apply`, the merge queue):
 * no git operation in progress, and no ignored file of the parent that the incoming files would
 * overwrite (git replaces ignored files silently — an `.env` the child un-ignored).
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { runGit } from "./git.ts";

/** Splits NUL- (or `separator`-) separated git output, dropping empty entries. */
export function splitPaths(output: string, separator = "\0"): string[] {
	return output.split(separator).filter((line) => line !== "");
}

/** Git operations in progress in a git directory (a merge, rebase, cherry-pick, …), by marker file. */
export function operationInProgress(gitDir: string): string | null {
	for (const [marker, name] of [
		["MERGE_HEAD", "a merge"],
		["CHERRY_PICK_HEAD", "a cherry-pick"],
		["REVERT_HEAD", "a revert"],
		["rebase-merge", "a rebase"],
		["rebase-apply", "a rebase or am"],
	] as const) {
		if (existsSync(join(gitDir, marker))) return name;
	}
	return null;
}

/** The paths among `touched` that exist in the work tree of `root` as ignored files (or below an ignored directory). */
export async function clobberedIgnored(root: string, touched: Iterable<string>): Promise<string[]> {
	const ignored = await runGit(["ls-files", "-z", "--others", "--ignored", "--exclude-standard", "--directory"], { cwd: root });
	const ignoredPaths = splitPaths(ignored.stdout);
	return [...touched].filter((path) => ignoredPaths.some((entry) => entry === path || (entry.endsWith("/") && path.startsWith(entry))));
}
