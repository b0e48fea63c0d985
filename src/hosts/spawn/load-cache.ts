/**
 * The files of one parent, loaded once and loaded again only when an input changed (issue 28):
 * the cache is keyed on the stat (inode, size, mtime, ctime) of every file and directory the
 * load depends on — the directories from the cwd up to the project (a `.pi` that appears), the
 * scope folders and their kind folders (a file added, removed or renamed), the settings files and
 * every file in a kind folder (an edit in place). Checking the key is one synchronous `stat` per
 * input (ADR 0198) — none for an input that did not exist in a folder that did (its creation
 * changes the folder); a load (synchronous, src/files/load.ts) runs only on a miss.
 */
import { readdir } from "node:fs/promises";
import { dirname, join, resolve } from "node:path";
import { KIND_DIRS } from "../../files/discovery.ts";
import type { LoadResult } from "../../files/types.ts";
import { coveredKey, racySince, statKey as keyOf } from "../../runtime/stat-key.ts";

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
	/** The check in flight: spawns asked for at once (one parent message) share one check. */
	let pending: { id: string; result: Promise<LoadResult> } | null = null;
	const check = async (inputs: LoadInputs, id: string): Promise<LoadResult> => {
		if (cached?.key && cached.inputs === id && keyOf(cached.paths) === cached.key) return cached.result;
		const started = racySince();
		const result = load(inputs);
		// An input that changed around the load may not be in its result: not kept. A missing file or
		// folder whose parent folder is an input is not stat'ed again: creating it changes the parent.
		const { key, paths } = coveredKey(await inputsOf(inputs, result), started);
		cached = { inputs: id, paths, key, result };
		return result;
	};
	return {
		get(inputs) {
			const id = JSON.stringify(inputs);
			if (pending?.id === id) return pending.result;
			const result = check(inputs, id).finally(() => {
				if (pending?.result === result) pending = null;
			});
			pending = { id, result };
			return result;
		},
		clear() {
			cached = null;
			pending = null;
		},
	};
}
