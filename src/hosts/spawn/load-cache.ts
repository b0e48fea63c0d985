/**
 * The files of one parent, loaded once and loaded again only when an input changed (issue 28):
 * the cache is keyed on the stat (inode, size, mtime, ctime) of every file and directory the
 * load depends on — the directories from the cwd up to the project (a `.pi` that appears), the
 * scope folders and their kind folders (a file added, removed or renamed), the settings files and
 * every file in a kind folder (an edit in place). Checking the key is one asynchronous `stat` per
 * input, in parallel, off the main thread; a load (synchronous, src/files/load.ts) runs only on a
 * miss.
 */
import { readdir, stat } from "node:fs/promises";
import { dirname, join, resolve } from "node:path";
import { KIND_DIRS } from "../../files/discovery.ts";
import type { LoadResult } from "../../files/types.ts";

/** Where a parent's files are loaded from. */
export interface LoadInputs {
	cwd: string;
	agentDir: string;
	homeDir: string;
	projectTrusted: boolean;
}

/** A parent's cache of its loaded files. */
export interface LoadCache {
	/** The files for `inputs`: the cached result while no input changed, else a fresh load. */
	get(inputs: LoadInputs): Promise<LoadResult>;
	/** Forget the cached result (the next `get` loads). */
	clear(): void;
}

interface Cached {
	inputs: string;
	paths: string[];
	/** Null when the result must not be reused (an input changed around its load). */
	key: string | null;
	result: LoadResult;
}

/**
 * A change this close (ns) to the load may share its timestamp with a later edit (the file system's
 * clock is coarse): such a result is used once and not kept, as git does with "racily clean" files.
 */
const RACY_NS = 100_000_000n;

/** One input's stat as a string ("-" when it does not exist), and its last change (ns). */
async function signature(path: string): Promise<{ text: string; changed: bigint }> {
	try {
		const s = await stat(path, { bigint: true });
		return { text: `${s.ino}:${s.size}:${s.mtimeNs}:${s.ctimeNs}`, changed: s.ctimeNs > s.mtimeNs ? s.ctimeNs : s.mtimeNs };
	} catch {
		return { text: "-", changed: 0n };
	}
}

/** The key of `paths`, or null when one of them changed after `since` (ns; the key could miss an edit). */
async function keyOf(paths: readonly string[], since?: bigint): Promise<string | null> {
	const all = await Promise.all(paths.map(signature));
	if (since !== undefined && all.some((one) => one.changed >= since)) return null;
	return all.map((one) => one.text).join("|");
}

/** The directories from `cwd` up to `top` (both included; only `cwd` when `top` is not above it). */
function ancestors(cwd: string, top: string | null): string[] {
	const out: string[] = [];
	let dir = resolve(cwd);
	const stop = top === null ? dir : resolve(top);
	for (;;) {
		out.push(dir);
		const parent = dirname(dir);
		if (dir === stop || parent === dir || !dir.startsWith(stop)) return out;
		dir = parent;
	}
}

/** Every path the load of `inputs` depended on, given what it found. */
async function inputsOf(inputs: LoadInputs, result: LoadResult): Promise<string[]> {
	const bases = [inputs.agentDir, ...(result.projectDir === null ? [] : [join(result.projectDir, ".pi")])];
	const paths = [...ancestors(inputs.cwd, result.projectDir), ...bases, ...bases.map((base) => join(base, "subagents.json"))];
	for (const base of bases) {
		for (const kind of Object.values(KIND_DIRS)) {
			const dir = join(base, kind);
			paths.push(dir);
			const names = await readdir(dir).catch(() => [] as string[]);
			for (const name of names) paths.push(join(dir, name));
		}
	}
	return paths;
}

/** A cache over `load` (the loader), for one parent. */
export function createLoadCache(load: (inputs: LoadInputs) => LoadResult): LoadCache {
	let cached: Cached | null = null;
	return {
		async get(inputs) {
			const id = JSON.stringify(inputs);
			if (cached?.key && cached.inputs === id && (await keyOf(cached.paths)) === cached.key) return cached.result;
			const started = BigInt(Date.now()) * 1_000_000n - RACY_NS;
			const result = load(inputs);
			const paths = await inputsOf(inputs, result);
			// An input that changed around the load may not be in its result: not kept.
			cached = { inputs: id, paths, key: await keyOf(paths, started), result };
			return result;
		},
		clear() {
			cached = null;
		},
	};
}
