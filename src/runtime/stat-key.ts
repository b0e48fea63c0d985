/**
 * A key over files' and directories' stat (inode, size, mtime, ctime), for caches that must see an
 * edit in place (issue 28): one `stat` per path, synchronous (ADR 0198).
 */
import { type BigIntStats, statSync } from "node:fs";
import { dirname } from "node:path";

/**
 * A path's stat, or the error code when there is none ("ENOENT" for a path that is not there, also
 * under a file). Synchronous, and without the exception Node builds for a missing path (ADR 0198):
 * on these machines one asynchronous `stat` costs the main thread 20–25 µs to hand to the thread
 * pool and take back, a synchronous one 4–6 µs, and a thrown ENOENT ~30 µs more in a spawn.
 */
export function statOf(path: string): BigIntStats | string {
	try {
		return statSync(path, { bigint: true, throwIfNoEntry: false }) ?? "ENOENT";
	} catch (error) {
		return (error as NodeJS.ErrnoException).code ?? "EIO";
	}
}

/**
 * A change this close (ns) before a load may share its timestamp with a later edit (the file
 * system's clock is coarse): a result loaded then is used once and not kept, as git does with
 * "racily clean" files.
 */
export const RACY_NS = 100_000_000n;

/** One path's stat as a string ("-" when it does not exist), and its last change (ns). */
function signature(path: string): { text: string; changed: bigint } {
	const s = statOf(path);
	if (typeof s === "string") return { text: "-", changed: 0n };
	return { text: `${s.ino}:${s.size}:${s.mtimeNs}:${s.ctimeNs}`, changed: s.ctimeNs > s.mtimeNs ? s.ctimeNs : s.mtimeNs };
}

/** When a load that starts now must not be kept if an input changed after it (ns since the epoch). */
export const racySince = (): bigint => BigInt(Date.now()) * 1_000_000n - RACY_NS;

/** The key of `paths`, or null when one of them changed at or after `since` (ns): the key could miss an edit. */
export function statKey(paths: readonly string[], since?: bigint): string | null {
	return coveredKey(paths, since, false).key;
}

/**
 * The key of `paths` as {@link statKey}, over the paths it must stat again: a path that does not
 * exist while its parent directory is among `paths` and exists (or is missing too and covered the
 * same way) is left out (`paths` of the answer) — creating it changes that folder's mtime, which
 * the key holds. `prune: false` keeps every path.
 */
export function coveredKey(paths: readonly string[], since?: bigint, prune = true): { key: string | null; paths: string[] } {
	const all = paths.map(signature);
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
