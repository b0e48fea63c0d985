/**
 * Files as stat data: one comparable string per file (size, mtime, ctime, inode, mode — what changes
 * when anything writes, renames or chmods it) and a walk of a tree into such strings. The escape
 * check, `worktree.include` and the setup check compare these instead of reading content.
 */
import { type Dirent, lstatSync, readdirSync, readlinkSync, realpathSync, type Stats } from "node:fs";
import { lstat, readdir, readlink } from "node:fs/promises";
import { basename, dirname, join } from "node:path";

/** The real path of `path`, through its nearest existing ancestor when it does not exist (yet, or any more). */
export function realOrNearest(path: string): string {
	try {
		return realpathSync(path);
	} catch {
		const parent = dirname(path);
		return parent === path ? path : join(realOrNearest(parent), basename(path));
	}
}

/**
 * `s:size:mtime:ctime:ino:mode` for a file (times in ms with the sub-millisecond part the platform
 * gives), `l:<target>` for a symlink, `d` for a directory.
 */
export function stateOf(stat: Stats, path: string): string {
	if (stat.isDirectory()) return "d";
	if (stat.isSymbolicLink()) {
		try {
			return `l:${readlinkSync(path)}`;
		} catch {
			return "l:?";
		}
	}
	return `s:${stat.size}:${stat.mtimeMs}:${stat.ctimeMs}:${stat.ino}:${stat.mode}`;
}

/** `lstat`, or null when the path does not exist. */
export function lstatOrNull(path: string): Stats | null {
	try {
		return lstatSync(path, { throwIfNoEntry: false }) ?? null;
	} catch {
		return null;
	}
}

/** The state of one path (see `stateOf`), or null when it does not exist. */
export function pathState(path: string): string | null {
	const stat = lstatOrNull(path);
	return stat ? stateOf(stat, path) : null;
}

/**
 * Every entry below `root` (symlinks not followed), as `prefix/rel` → state, directories included.
 * `root` itself is recorded under `prefix` when it is not a directory.
 */
export function walkStates(root: string, prefix: string, into: Map<string, string> = new Map()): Map<string, string> {
	const stat = lstatOrNull(root);
	if (!stat) return into;
	into.set(prefix, stateOf(stat, root));
	if (stat.isDirectory()) walkDirectory(root, prefix, into);
	return into;
}

function walkDirectory(dir: string, prefix: string, into: Map<string, string>): void {
	let entries: Dirent[];
	try {
		entries = readdirSync(dir, { withFileTypes: true });
	} catch {
		return;
	}
	for (const entry of entries) {
		const path = join(dir, entry.name);
		const rel = `${prefix}/${entry.name}`;
		if (entry.isDirectory()) {
			into.set(rel, "d");
			walkDirectory(path, rel, into);
			continue;
		}
		const stat = lstatOrNull(path);
		if (stat) into.set(rel, stateOf(stat, path));
	}
}

/**
 * The paths whose state in `now` differs from the recorded one (changed, or gone), then those only
 * `now` holds (created), in that order. Takes what it compares out of `now`.
 */
export function changedStates(recorded: Iterable<[string, string | undefined]>, now: Map<string, string>): string[] {
	const changed: string[] = [];
	for (const [path, want] of recorded) {
		if (now.get(path) !== want) changed.push(path);
		now.delete(path);
	}
	changed.push(...now.keys());
	return changed;
}

/** `walkStates` without holding the event loop (background work: a pool refill). */
export async function walkStatesAsync(root: string, prefix: string): Promise<Map<string, string>> {
	const into = new Map<string, string>();
	const stat = await lstat(root).catch(() => null);
	if (!stat) return into;
	into.set(prefix, stateOf(stat, root));
	if (!stat.isDirectory()) return into;
	const pending: [string, string][] = [[root, prefix]];
	while (pending.length > 0) {
		const [dir, rel] = pending.pop() as [string, string];
		const entries = await readdir(dir, { withFileTypes: true }).catch(() => [] as Dirent[]);
		await Promise.all(
			entries.map(async (entry) => {
				const path = join(dir, entry.name);
				const below = `${rel}/${entry.name}`;
				if (entry.isDirectory()) {
					into.set(below, "d");
					pending.push([path, below]);
					return;
				}
				const found = await lstat(path).catch(() => null);
				if (!found) return;
				into.set(below, found.isSymbolicLink() ? `l:${await readlink(path).catch(() => "?")}` : stateOf(found, path));
			}),
		);
	}
	return into;
}
