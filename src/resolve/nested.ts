/**
 * A nested spawn resolved under a chain of spawning types (issue 21; `cadre explain TYPE --parent
 * LEAD`): each parent, outermost first, is resolved as a spawn of the one before it with an empty
 * request, and its facts cap the next. The chain's links are plain data for explain.
 */
import type { Budget } from "../core/budget.ts";
import type { CapabilityMode, IsolationMode } from "../core/values.ts";
import { spawnerFacts } from "./delegation.ts";
import { resolve } from "./resolve.ts";
import type { Delegation, Refusal, ResolveInput, ResolveResult, SpawnerFacts } from "./types.ts";

/** One spawning run of the chain, as it resolved. */
export interface ChainLink {
	type: string;
	depth: number;
	refused: Refusal | null;
	capabilityMode: CapabilityMode | null;
	tools: string[];
	isolation: IsolationMode;
	delegation: Delegation | null;
	budget: Budget | null;
}

/** The chain's outcome: the facts the target spawns under, or the first parent that cannot spawn. */
export interface Chain {
	links: ChainLink[];
	spawner: SpawnerFacts | null;
	/** The resolution of the first parent that was refused (the target is then not resolved). */
	failed: ResolveResult | null;
}

/** Resolves `parents` (outermost first) as a chain of spawns from `input`'s session. */
export function resolveChain(input: ResolveInput, parents: readonly string[]): Chain {
	const links: ChainLink[] = [];
	let spawner: SpawnerFacts | null = input.spawner ?? null;
	for (const type of parents) {
		const result = resolve(nestedInput({ ...input, request: {}, type, resumeFrom: null }, spawner));
		const config = result.config;
		links.push({
			type: result.type,
			depth: config?.depth ?? (spawner?.depth ?? 0) + 1,
			refused: result.refused,
			capabilityMode: config?.capabilityMode ?? null,
			tools: config?.tools ?? [],
			isolation: config?.isolation ?? "none",
			delegation: config?.delegation ?? null,
			budget: config?.budget ?? null,
		});
		if (result.refused || !config) return { links, spawner, failed: result };
		spawner = spawnerFacts(result.type, config);
	}
	return { links, spawner, failed: null };
}

/**
 * The input of a spawn made by `spawner`: its child's session is the spawner's, so a child that
 * inherits tools inherits the spawner's (never its delegation tools: the resolver drops them).
 */
export function nestedInput(input: ResolveInput, spawner: SpawnerFacts | null): ResolveInput {
	if (!spawner) return input;
	return { ...input, spawner, parent: { ...input.parent, activeTools: [...spawner.tools] } };
}
