/**
 * Who still works in a worktree (issue 23, ADR 0116). A worktree's lock names the process that runs
 * *its* run; it says nothing of other runs working inside it — a run started with a `cwd` in a kept
 * worktree, or the children of a pi the child started there (a nested child). Every run cadre
 * starts in a linked working tree, isolated or not, in any process, writes a use record in the
 * repository's common git directory (`<common>/cadre-users/<run id>-<pid>.json`: its owner and the
 * directories it works in) and deletes it when it ends. Before removing a worktree — at a run's
 * end, in recovery, in `clean`, when the pool takes one back or clears one — cadre asks
 * `liveUsers`: a record whose owner still runs (or runs on a host cadre cannot check) and that
 * works inside the worktree keeps it. A record whose owner is gone is deleted on sight.
 */
import { mkdirSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { isInside } from "../files/read-confined.ts";
import { currentOwner, formatOwner, type Owner, ownerState, parseOwner } from "../runtime/owner.ts";
import { realOrNearest } from "./file-tree.ts";
import { readGitFile, repoFacts } from "./git.ts";

const DIR = "cadre-users";
const MAX_RECORD_BYTES = 64 * 1024;

/** A live run working inside a worktree. */
export interface WorktreeUser {
	runId: string;
	owner: Owner;
}

/** Why a worktree is kept for its users, in one clause. */
export function usersReason(users: WorktreeUser[]): string {
	const named = users.slice(0, 3).map((u) => `${u.runId} (process ${u.owner.pid}${u.owner.host === currentOwner().host ? "" : ` on ${u.owner.host}`})`);
	return `a run of another process still works in it: ${named.join(", ")}${users.length > 3 ? ` and ${users.length - 3} more` : ""}`;
}

/**
 * Records that run `runId` of this process works in `dirs`; returns the release (deletes the
 * record; safe to call twice). Only directories in a linked working tree are recorded: cadre
 * removes nothing else, so a run in the repository's main working tree (the usual spawn) or
 * outside any repository writes nothing (issue 28: no write on the spawn path). `found` hears the
 * working tree's top of each directory as looked up (null outside one).
 */
export async function registerUse(runId: string, dirs: string[], found?: (dir: string, root: string | null) => void): Promise<() => void> {
	const byCommon = new Map<string, string[]>();
	// The child's cwd is usually the parent's: one lookup per directory.
	for (const dir of new Set(dirs)) {
		const repo = await repoFacts(dir);
		found?.(dir, repo.ok ? repo.facts.root : null);
		if (!repo.ok || !repo.facts.linked) continue;
		const list = byCommon.get(repo.facts.commonDir) ?? [];
		list.push(realOrNearest(dir));
		byCommon.set(repo.facts.commonDir, list);
	}
	const files: string[] = [];
	for (const [commonDir, paths] of byCommon) {
		try {
			mkdirSync(join(commonDir, DIR), { recursive: true });
			const file = join(commonDir, DIR, `${runId}-${process.pid}.json`);
			writeFileSync(file, JSON.stringify({ owner: formatOwner(currentOwner()), runId, paths: [...new Set(paths)] }));
			files.push(file);
		} catch {
			// a repository cadre cannot write to: its worktrees are not cadre's to remove either
		}
	}
	return () => {
		for (const file of files.splice(0)) rmSync(file, { force: true });
	};
}

/** The live runs (of any process) whose directories are inside `worktreePath`; deletes the records of owners that are gone. */
export function liveUsers(commonDir: string, worktreePath: string): WorktreeUser[] {
	let names: string[];
	try {
		names = readdirSync(join(commonDir, DIR));
	} catch {
		return [];
	}
	const root = realOrNearest(worktreePath);
	const users: WorktreeUser[] = [];
	for (const name of names) {
		if (!name.endsWith(".json")) continue;
		const file = join(commonDir, DIR, name);
		const record = parseRecord(readGitFile(file, MAX_RECORD_BYTES));
		if (!record) continue;
		if (ownerState(record.owner) === "gone") {
			rmSync(file, { force: true });
			continue;
		}
		if (record.paths.some((path) => isInside(path, root))) users.push({ runId: record.runId, owner: record.owner });
	}
	return users;
}

function parseRecord(text: string | null): { owner: Owner; runId: string; paths: string[] } | null {
	if (text === null) return null;
	try {
		const value = JSON.parse(text) as { owner?: unknown; runId?: unknown; paths?: unknown };
		const owner = parseOwner(typeof value.owner === "string" ? value.owner : null);
		if (!owner || typeof value.runId !== "string" || !Array.isArray(value.paths)) return null;
		return { owner, runId: value.runId, paths: value.paths.filter((p): p is string => typeof p === "string") };
	} catch {
		return null;
	}
}
