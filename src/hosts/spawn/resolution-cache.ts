/**
 * The resolutions of one parent, kept while nothing they read changed (issue 28): a fan-out of
 * one type resolves once, not once per child. `resolve` is pure over its input, so a result is
 * reused for an input equal to its own in every part the resolver reads:
 *
 * - the same loaded files (the object the load cache hands out while no file changed);
 * - the same request apart from its `prompt` and `description` (the resolver never reads them;
 *   a test holds it to that), type, parent facts, spawner and tool kinds;
 * - the same answers from the model catalog to the lookups the resolution made (asked again, they
 *   are memoized in the live catalog);
 * - no file read: a resolution that read a file through the reader (`prompt_file`, a request
 *   `cwd`, an input path) is not kept, so an edit of such a file shows in the next spawn;
 * - no resume (its stored run is not part of the key).
 *
 * A kept result is shared by the runs it plans: nothing mutates a resolution after `resolve`.
 */
import { resolve } from "../../resolve/resolve.ts";
import type { LoadResult } from "../../files/types.ts";
import type { ModelCatalog, ModelLookup, ResolveInput, ResolveResult, SpawnReader } from "../../resolve/types.ts";

/** Results per loaded files; at most this many request shapes each. */
const LIMIT = 64;

interface Kept {
	result: ResolveResult;
	/** The catalog's answers the resolution used. */
	lookups: { name: string; answer: ModelLookup }[];
	clamps: { id: string; level: Parameters<ModelCatalog["clampThinking"]>[1]; answer: string }[];
}

/** A parent's cache of resolutions. */
export interface ResolutionCache {
	/** `resolve(input)`, or the kept result of an equal input. */
	resolve(input: ResolveInput): ResolveResult;
}

/** What the resolver reads of `input`, as text (the request without the texts it never reads); null: not kept. */
function keyOf(input: ResolveInput): string | null {
	if (input.resumeFrom !== undefined || input.request.resume !== undefined) return null;
	const { prompt: _prompt, description: _description, ...request } = input.request;
	return JSON.stringify([request, input.type, input.parent, input.spawner ?? null, input.toolKinds ?? null]);
}

/** Whether the catalog still answers as it did for `kept`. */
function sameAnswers(kept: Kept, models: ModelCatalog): boolean {
	for (const { name, answer } of kept.lookups) {
		const now = models.lookup(name);
		if (now !== answer && JSON.stringify(now) !== JSON.stringify(answer)) return false;
	}
	return kept.clamps.every(({ id, level, answer }) => models.clampThinking(id, level) === answer);
}

/** Resolves `input`, recording what it asked the catalog and whether it read a file. */
function tracked(input: ResolveInput): { kept: Kept; readFiles: boolean } {
	let readFiles = false;
	const kept: Kept = { result: null as unknown as ResolveResult, lookups: [], clamps: [] };
	const reader: SpawnReader = {
		read: (ref) => ((readFiles = true), input.reader.read(ref)),
		isDirectory: (path) => ((readFiles = true), input.reader.isDirectory(path)),
		locate: (path) => ((readFiles = true), input.reader.locate(path)),
	};
	const models: ModelCatalog = {
		lookup(name) {
			const answer = input.models.lookup(name);
			kept.lookups.push({ name, answer });
			return answer;
		},
		clampThinking(id, level) {
			const answer = input.models.clampThinking(id, level);
			kept.clamps.push({ id, level, answer });
			return answer;
		},
	};
	kept.result = resolve({ ...input, reader, models });
	return { kept, readFiles };
}

/** A new, empty cache (one per parent). */
export function createResolutionCache(): ResolutionCache {
	const byLoad = new WeakMap<LoadResult, Map<string, Kept>>();
	return {
		resolve(input) {
			const key = keyOf(input);
			if (key === null) return resolve(input);
			let shapes = byLoad.get(input.loaded);
			const hit = shapes?.get(key);
			if (hit && sameAnswers(hit, input.models)) return hit.result;
			const { kept, readFiles } = tracked(input);
			if (readFiles) return kept.result;
			if (!shapes) byLoad.set(input.loaded, (shapes = new Map()));
			if (shapes.size >= LIMIT) shapes.delete(shapes.keys().next().value as string);
			shapes.set(key, kept);
			return kept.result;
		},
	};
}
