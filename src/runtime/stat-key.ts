/**
 * A key over files' and directories' stat (inode, size, mtime, ctime), for caches that must see an
 * edit in place (issue 28): one asynchronous `stat` per path, in parallel, off the main thread.
 */
import { stat } from "node:fs/promises";

/**
 * A change this close (ns) before a load may share its timestamp with a later edit (the file
 * system's clock is coarse): a result loaded then is used once and not kept, as git does with
 * "racily clean" files.
 */
export const RACY_NS = 100_000_000n;

/** One path's stat as a string ("-" when it does not exist), and its last change (ns). */
async function signature(path: string): Promise<{ text: string; changed: bigint }> {
	try {
		const s = await stat(path, { bigint: true });
		return { text: `${s.ino}:${s.size}:${s.mtimeNs}:${s.ctimeNs}`, changed: s.ctimeNs > s.mtimeNs ? s.ctimeNs : s.mtimeNs };
	} catch {
		return { text: "-", changed: 0n };
	}
}

/** When a load that starts now must not be kept if an input changed after it (ns since the epoch). */
export const racySince = (): bigint => BigInt(Date.now()) * 1_000_000n - RACY_NS;

/** The key of `paths`, or null when one of them changed at or after `since` (ns): the key could miss an edit. */
export async function statKey(paths: readonly string[], since?: bigint): Promise<string | null> {
	const all = await Promise.all(paths.map(signature));
	if (since !== undefined && all.some((one) => one.changed >= since)) return null;
	return all.map((one) => one.text).join("|");
}
