/**
 * A key over files' and directories' stat (inode, size, mtime, ctime), for caches that must see an
 * edit in place (issue 28): one asynchronous `stat` per path, in parallel, off the main thread.
 */
import { type BigIntStats, stat } from "node:fs";
import { dirname } from "node:path";

/**
 * A path's stat, or the error code when there is none. Through the callback API, which answers in
 * about half the time of `fs/promises` (no promise per request inside Node, no stack captured for a
 * missing path): a spawn waits on a dozen of these (issue 28).
 */
export function statOf(path: string): Promise<BigIntStats | string> {
	if (asked === null) {
		asked = new Map();
		queueMicrotask(() => {
			asked = null;
		});
	}
	let pending = asked.get(path);
	if (!pending) {
		pending = new Promise((settle) => stat(path, { bigint: true }, (error, stats) => settle(error ? (error.code ?? "EIO") : stats)));
		asked.set(path, pending);
	}
	return pending;
}

/**
 * The stats asked for in this synchronous run of the event loop, by path: callers in one run share
 * one `stat` (a spawn's file and settings checks both stat the project and agent folders). An edit
 * that ended before the run began is seen by it; none can land between two callers of one run that
 * a second `stat` would see more surely. Cleared when the run ends.
 */
let asked: Map<string, Promise<BigIntStats | string>> | null = null;

/**
 * A change this close (ns) before a load may share its timestamp with a later edit (the file
 * system's clock is coarse): a result loaded then is used once and not kept, as git does with
 * "racily clean" files.
 */
export const RACY_NS = 100_000_000n;

/** One path's stat as a string ("-" when it does not exist), and its last change (ns). */
async function signature(path: string): Promise<{ text: string; changed: bigint }> {
	const s = await statOf(path);
	if (typeof s === "string") return { text: "-", changed: 0n };
	return { text: `${s.ino}:${s.size}:${s.mtimeNs}:${s.ctimeNs}`, changed: s.ctimeNs > s.mtimeNs ? s.ctimeNs : s.mtimeNs };
}

/** When a load that starts now must not be kept if an input changed after it (ns since the epoch). */
export const racySince = (): bigint => BigInt(Date.now()) * 1_000_000n - RACY_NS;

/** The key of `paths`, or null when one of them changed at or after `since` (ns): the key could miss an edit. */
export async function statKey(paths: readonly string[], since?: bigint): Promise<string | null> {
	return (await coveredKey(paths, since, false)).key;
}

/**
 * The key of `paths` as {@link statKey}, over the paths it must stat again: a path that does not
 * exist while its parent directory is among `paths` and exists (or is missing too and covered the
 * same way) is left out (`paths` of the answer) — creating it changes that folder's mtime, which
 * the key holds. `prune: false` keeps
 * every path.
 */
export async function coveredKey(paths: readonly string[], since?: bigint, prune = true): Promise<{ key: string | null; paths: string[] }> {
	const all = await Promise.all(paths.map(signature));
	if (since !== undefined && all.some((one) => one.changed >= since)) return { key: null, paths: [...paths] };
	const texts = new Map(paths.map((path, i) => [path, all[i]?.text ?? "-"]));
	/** A missing path under an input folder that exists, through missing input folders only. */
	const covered = (path: string): boolean => {
		for (let dir = dirname(path); texts.has(dir); dir = dirname(dir)) {
			if (texts.get(dir) !== "-") return true;
			if (dirname(dir) === dir) return false;
		}
		return false;
	};
	const kept = paths.map((path, i) => ({ path, text: all[i]?.text ?? "-" })).filter((one) => !prune || one.text !== "-" || !covered(one.path));
	return { key: kept.map((one) => one.text).join("|"), paths: kept.map((one) => one.path) };
}
