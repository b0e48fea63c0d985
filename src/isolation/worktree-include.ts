/**
 * `worktree.include` (ADR 0086): bring an ignored path of the parent (`node_modules`, `.env`, …)
 * into a worktree. Each file is copied copy-on-write where the file system can (a reflink: its own
 * inode, sharing blocks until either side writes), else copied; symlinks inside are recreated, an
 * absolute one that points into the parent's repository is pointed at the worktree instead. So a
 * child's write never reaches the parent's files through a shared inode. Only an entry the operator
 * marked `symlink: true` is a symlink to the parent's path (its files are shared; the escape check
 * watches them).
 *
 * A record of each copy (per file: the source's and the copy's stat data) makes the next sync of a
 * pooled worktree cost what changed in the parent's tree since (a walk, and copies of what differs),
 * and lets finishing tell whether the child changed anything in the copy.
 */
import { constants, copyFileSync, cpSync, mkdirSync, realpathSync, rmSync, symlinkSync, unlinkSync } from "node:fs";
import { cp } from "node:fs/promises";
import { dirname, isAbsolute, join, relative } from "node:path";
import type { WorktreeInclude } from "../files/types.ts";
import { isInside } from "../files/read-confined.ts";
import { changedStates, lstatOrNull, pathState, walkStates, walkStatesAsync } from "./file-tree.ts";

/** How an included path's files were brought in. */
export type IncludeMethod = "reflink" | "copy" | "symlink";

/** What a worktree holds of one include entry: per path below the worktree root, `source|copy` states. */
export interface IncludeRecord {
	path: string;
	mode: WorktreeInclude["mode"];
	method: IncludeMethod | null;
	/** Repository-relative path → `<parent's state>|<worktree copy's state>`; empty when the parent has no such path. */
	files: Record<string, string>;
}

/** What one sync did, for the result. */
export interface IncludeOutcome {
	path: string;
	/** `reflink`, `copy` or `symlink`; null when nothing had to be copied (up to date) or the parent has no such path. */
	method: IncludeMethod | null;
	/** Whether the parent has the path at all. */
	present: boolean;
	/** Files copied now, files already up to date, paths removed because the parent no longer has them. */
	copied: number;
	unchanged: number;
	removed: number;
	/** Why the path was skipped (it resolves outside the repository), or null. */
	skipped: string | null;
}

function splitRecord(value: string | undefined): [string, string] | null {
	if (value === undefined) return null;
	const bar = value.indexOf("|");
	return [value.slice(0, bar), value.slice(bar + 1)];
}

/** Whether reflinks work from `src`'s file system to `dst`'s: one forced clone (which leaves the copy made when it works). */
function reflinkWorks(src: string, dst: string): boolean {
	try {
		copyFileSync(src, dst, constants.COPYFILE_FICLONE_FORCE);
		return true;
	} catch {
		return false;
	}
}

/**
 * Brings `include` from the parent's repository into the worktree, given what the worktree held of
 * it before (`previous`, null for a fresh worktree). Returns the new record and what it did.
 */
export function syncInclude(
	parentRoot: string,
	worktreeRoot: string,
	include: WorktreeInclude,
	previous: IncludeRecord | null,
): { record: IncludeRecord; outcome: IncludeOutcome } {
	const outcome: IncludeOutcome = { path: include.path, method: null, present: false, copied: 0, unchanged: 0, removed: 0, skipped: null };
	const record: IncludeRecord = { path: include.path, mode: include.mode, method: null, files: {} };
	const target = join(worktreeRoot, include.path);
	const { real, skipped } = includeSource(parentRoot, include);
	outcome.skipped = skipped;
	const stale = new Set(Object.keys(previous?.files ?? {}));
	if (real !== null) {
		outcome.present = true;
		if (include.mode === "symlink") {
			linkInclude(real, target, record, outcome);
		} else {
			const top = join(worktreeRoot, include.path);
			if (!previous && lstatOrNull(top) !== null) {
				throw new Error(`${include.path} is part of the commit; include only paths git ignores`);
			}
			copyTree(real, include.path, parentRoot, worktreeRoot, previous, record, outcome);
		}
		for (const rel of Object.keys(record.files)) stale.delete(rel);
	}
	removeStale(worktreeRoot, stale, outcome);
	return { record, outcome };
}

/** The real path of an include's source, when the parent has it inside the repository. */
function includeSource(parentRoot: string, include: WorktreeInclude): { real: string | null; skipped: string | null } {
	let real: string;
	try {
		real = realpathSync(join(parentRoot, include.path));
	} catch {
		return { real: null, skipped: null };
	}
	if (!isInside(real, parentRoot)) return { real: null, skipped: `${include.path} resolves to ${real}, outside the repository` };
	return { real, skipped: null };
}

/**
 * A first copy made in the background (a pool refill): the same as `syncInclude` into a fresh
 * worktree, without holding the event loop (asynchronous walks and copy). Symlink entries are made
 * at hand-out, not here.
 */
export async function copyIncludeInBackground(parentRoot: string, worktreeRoot: string, include: WorktreeInclude): Promise<IncludeRecord | null> {
	const { real } = includeSource(parentRoot, include);
	if (real === null || include.mode === "symlink") return null;
	const record: IncludeRecord = { path: include.path, mode: include.mode, method: null, files: {} };
	const target = join(worktreeRoot, include.path);
	if (lstatOrNull(target) !== null) return null;
	const states = await walkStatesAsync(real, include.path);
	const mode = probeReflink(real, include.path, target, states, record);
	await cp(real, target, { recursive: true, mode, verbatimSymlinks: true, force: false, errorOnExist: true });
	recordCopy(parentRoot, worktreeRoot, states, await walkStatesAsync(target, include.path), record);
	return record;
}

function linkInclude(real: string, target: string, record: IncludeRecord, outcome: IncludeOutcome): void {
	const want = `l:${real}`;
	const had = pathState(target);
	if (had !== want) {
		if (had !== null) rmSync(target, { recursive: true, force: true });
		mkdirSync(dirname(target), { recursive: true });
		symlinkSync(real, target);
		outcome.copied = 1;
	} else {
		outcome.unchanged = 1;
	}
	outcome.method = "symlink";
	record.method = "symlink";
	record.files[record.path] = `${want}|${want}`;
}

/**
 * Copies the tree at `real` to `rel` in the worktree. With a record of an earlier copy, what the
 * parent did not change since is left as it is (that record was checked when the worktree last
 * finished), so the cost is a walk of the parent's tree plus the copies of what differs.
 */
function copyTree(
	real: string,
	rel: string,
	parentRoot: string,
	worktreeRoot: string,
	previous: IncludeRecord | null,
	record: IncludeRecord,
	outcome: IncludeOutcome,
): void {
	// the top level is followed when it is a symlink (inside the repository); below it, nothing is
	const states = walkStates(real, rel);
	if (!previous) {
		freshCopy(real, rel, parentRoot, worktreeRoot, states, record, outcome);
		return;
	}
	let mode: number | null = null;
	for (const [path, sourceState] of states) {
		const before = splitRecord(previous?.files[path]);
		if (before && before[0] === sourceState) {
			record.files[path] = value(sourceState, before[1]);
			outcome.unchanged++;
			continue;
		}
		const dst = join(worktreeRoot, path);
		// what is there is replaced, never written through (a symlink the copy left)
		const had = lstatOrNull(dst);
		if (sourceState === "d") {
			if (had && !had.isDirectory()) rmSync(dst, { force: true });
			mkdirSync(dst, { recursive: true });
			record.files[path] = "d|d";
			continue;
		}
		if (had?.isDirectory()) rmSync(dst, { recursive: true, force: true });
		else if (had) unlinkSync(dst);
		if (sourceState.startsWith("l:")) {
			symlinkSync(linkTarget(parentRoot, worktreeRoot, sourceState.slice(2)), dst);
		} else {
			const src = join(real, relative(rel, path));
			if (mode === null) {
				mode = reflinkWorks(src, dst) ? constants.COPYFILE_FICLONE : 0;
				record.method = mode === 0 ? "copy" : "reflink";
				outcome.method = record.method;
				if (mode === 0) copyFileSync(src, dst, 0);
			} else {
				copyFileSync(src, dst, mode);
			}
		}
		record.files[path] = value(sourceState, pathState(dst) ?? "missing");
		outcome.copied++;
	}
}

/**
 * A first copy: the whole tree in one `cpSync` (native, reflinks where they work, symlinks copied as
 * they are), then the copy's stat data. The parent's tree was walked before copying, so a file it
 * changes meanwhile is copied again by the next sync.
 */
function freshCopy(
	real: string,
	rel: string,
	parentRoot: string,
	worktreeRoot: string,
	states: Map<string, string>,
	record: IncludeRecord,
	outcome: IncludeOutcome,
): void {
	const target = join(worktreeRoot, rel);
	const mode = probeReflink(real, rel, target, states, record);
	outcome.method = record.method;
	cpSync(real, target, { recursive: true, mode, verbatimSymlinks: true, force: false, errorOnExist: true });
	recordCopy(parentRoot, worktreeRoot, states, walkStates(target, rel), record);
	for (const state of states.values()) if (state !== "d") outcome.copied++;
}

/** Whether the copy can use reflinks (one forced clone of a file of the tree); sets the record's method. */
function probeReflink(real: string, rel: string, target: string, states: Map<string, string>, record: IncludeRecord): number {
	const probe = [...states].find(([, state]) => state.startsWith("s:"));
	if (!probe) return 0;
	const probeCopy = `${target}.cadre-reflink-probe`;
	mkdirSync(dirname(target), { recursive: true });
	const works = reflinkWorks(join(real, relative(rel, probe[0])), probeCopy);
	rmSync(probeCopy, { force: true });
	record.method = works ? "reflink" : "copy";
	return works ? constants.COPYFILE_FICLONE : 0;
}

/** Records a whole-tree copy, pointing absolute links into the parent's repository at the worktree instead. */
function recordCopy(parentRoot: string, worktreeRoot: string, states: Map<string, string>, copied: Map<string, string>, record: IncludeRecord): void {
	for (const [path, sourceState] of states) {
		let copy = copied.get(path) ?? "missing";
		const link = copy.startsWith("l:") ? copy.slice(2) : null;
		const target = link === null ? null : linkTarget(parentRoot, worktreeRoot, link);
		if (target !== link && target !== null) {
			const dst = join(worktreeRoot, path);
			unlinkSync(dst);
			symlinkSync(target, dst);
			copy = pathState(dst) ?? "missing";
		}
		record.files[path] = value(sourceState, copy);
	}
}

/**
 * Where a copied symlink points: an absolute link into the parent's repository is pointed at the
 * worktree instead (it would let the child write to the parent's files); any other stays as it is.
 */
function linkTarget(parentRoot: string, worktreeRoot: string, link: string): string {
	return isAbsolute(link) && isInside(link, parentRoot) ? join(worktreeRoot, relative(parentRoot, link)) : link;
}

function value(source: string, copy: string): string {
	return `${source}|${copy}`;
}

/** Removes what an earlier sync copied and the parent no longer has, deepest first. */
function removeStale(worktreeRoot: string, stale: Set<string>, outcome: IncludeOutcome): void {
	for (const rel of [...stale].sort().reverse()) {
		const path = join(worktreeRoot, rel);
		if (lstatOrNull(path) === null) continue;
		rmSync(path, { recursive: true, force: true });
		outcome.removed++;
	}
}

/**
 * The paths of an include record whose copy in the worktree is not what the sync left (the child
 * wrote, created, removed or replaced them), repository-relative and sorted.
 */
export function changedInclude(worktreeRoot: string, record: IncludeRecord): string[] {
	const top = join(worktreeRoot, record.path);
	if (record.mode === "symlink") {
		const want = splitRecord(record.files[record.path])?.[1] ?? null;
		return pathState(top) === want ? [] : [record.path];
	}
	const copies = Object.entries(record.files).map(([path, value]): [string, string | undefined] => [path, splitRecord(value)?.[1]]);
	return changedStates(copies, walkStates(top, record.path)).sort();
}
