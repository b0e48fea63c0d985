/**
 * Who holds a run's worktree lock (ADR 0065). cadre locks a run's worktree with
 * `git worktree lock --reason "<formatOwner(currentOwner())>"`: the pid, start time and host of
 * the process that runs the child. A lock whose owner is gone (its parent `pi` crashed) is
 * *interrupted*; one whose owner runs, or that names no cadre owner (hand-made, an older cadre),
 * is in use. Taking over an interrupted lock is atomic, so two recoveries never both act on it.
 */
import { randomUUID } from "node:crypto";
import { linkSync, renameSync, unlinkSync } from "node:fs";
import { join, resolve } from "node:path";
import { readGitFile, runGit } from "./git.ts";
import { currentOwner, formatOwner, type Owner, ownerState, parseOwner } from "../runtime/owner.ts";

/** The lock reason naming this process as the owner. */
export function ownerLockReason(): string {
	return formatOwner(currentOwner());
}

/** Who holds a worktree's lock. */
export type LockHolder =
	| { state: "unlocked"; owner: null }
	/** The owner runs, runs on another host, or the lock names no cadre owner (`owner` null). */
	| { state: "in-use"; owner: Owner | null }
	/** The owner is gone: the run was interrupted. */
	| { state: "interrupted"; owner: Owner };

/** Classifies a lock from `git worktree list --porcelain`'s `locked` and its reason. */
export function lockHolder(record: { locked: boolean; lockReason: string | null }): LockHolder {
	if (!record.locked) return { state: "unlocked", owner: null };
	const owner = parseOwner(record.lockReason);
	if (owner && ownerState(owner) === "gone") return { state: "interrupted", owner };
	return { state: "in-use", owner };
}

/** A linked worktree's administrative directory (`<common>/worktrees/<name>`), from its `.git` file. */
export function worktreeAdminDir(worktreePath: string): string | null {
	// The child can replace its worktree's `.git`: read as a bounded regular file, never blocking.
	const pointer = readGitFile(join(worktreePath, ".git"))?.trim();
	return pointer?.startsWith("gitdir: ") ? resolve(worktreePath, pointer.slice(8).trim()) : null;
}

/**
 * Makes this process the owner of an interrupted worktree's lock. Returns false — and changes
 * nothing — when the lock is not interrupted (any more): another recovery took it first, or its
 * owner runs. The lock file (`<admin>/locked`, whose content is the reason, gitrepository-layout(5))
 * is renamed aside, which only one process can do; the one that did checks that the owner is gone
 * and locks with its own reason, or puts the lock back.
 */
export async function takeOverLock(worktreePath: string, root: string): Promise<boolean> {
	const admin = worktreeAdminDir(worktreePath);
	if (!admin) return false;
	const lockFile = join(admin, "locked");
	const aside = `${lockFile}.cadre-${randomUUID()}`;
	try {
		renameSync(lockFile, aside);
	} catch {
		return false;
	}
	let taken = false;
	try {
		const holder = lockHolder({ locked: true, lockReason: readGitFile(aside) });
		if (holder.state === "interrupted") {
			const locked = await runGit(["worktree", "lock", "--reason", ownerLockReason(), worktreePath], { cwd: root });
			taken = locked.code === 0;
		}
		// not interrupted, or git could not lock: put the lock back unless another was made meanwhile
		if (!taken) linkSync(aside, lockFile);
	} catch {
		// the lock was recreated meanwhile (linkSync): that lock stands
	} finally {
		try {
			unlinkSync(aside);
		} catch {
			// already gone
		}
	}
	return taken;
}
