/**
 * Nesting (issue 21): whether a child delegates and which types it may spawn, the refusals of a
 * nested spawn (`depth-exceeded`, `type-not-allowed`), and the narrowing that keeps a tree from
 * escalating — a grandchild's capability and tools are the intersection of its own and its
 * spawner's, its isolation at least its spawner's, each cap named in the trace (`parent <type>`).
 */
import { DELEGATION_TOOLS, SUBAGENT_TOOL } from "../core/cadre-tools.ts";
import type { CapabilityMode, IsolationMode } from "../core/values.ts";
import { nameKey } from "../core/values.ts";
import type { LoadResult, ToolKind } from "../files/types.ts";
import type { ResolutionContext } from "./context.ts";
import { ORDER } from "./order.ts";
import { enabledTypes } from "./enabled.ts";
import { loadedSlot, pickIn, show } from "./slots.ts";
import { MODE_KEEPS } from "./tools.ts";
import type { Delegation, EffectiveConfig, SpawnerFacts, TraceEntry } from "./types.ts";

/** The run's depth: one below its spawner, 1 for a child of the root session. */
export function depthOf(spawner: SpawnerFacts | null | undefined): number {
	return (spawner?.depth ?? 0) + 1;
}

/** The facts a run spawns with, from its resolved (or stored) config. */
export function spawnerFacts(type: string, config: EffectiveConfig): SpawnerFacts {
	return {
		type,
		depth: config.depth,
		capabilityMode: config.capabilityMode,
		tools: [...config.tools],
		isolation: config.isolation,
		delegation: config.delegation,
		budget: { ...config.budget },
	};
}

/**
 * The types a delegating child may spawn, for its `subagent` tool's description and the check:
 * its `subagents` among the enabled types (every enabled type for `*`); none when it may not
 * delegate. Canonical names, sorted.
 */
export function spawnableTypes(loaded: LoadResult, delegation: Delegation): string[] {
	if (!delegation.allowed) return [];
	const enabled = enabledTypes(loaded);
	if (delegation.subagents === "*") return enabled;
	const listed = new Set(delegation.subagents.map(nameKey));
	return enabled.filter((name) => listed.has(nameKey(name)));
}

/** Refuses a spawn past settings `maxDepth` or of a type the spawner may not spawn. */
export function checkNesting(ctx: ResolutionContext): void {
	const spawner = ctx.input.spawner;
	const maxDepth = ctx.input.loaded.settings.maxDepth;
	const depth = depthOf(spawner);
	if (depth > maxDepth.value) {
		ctx.refusals.add("depth-exceeded", `a run at depth ${depth} is past maxDepth ${maxDepth.value} (${maxDepth.source}); "${spawner?.type}" is at depth ${spawner?.depth} and may not spawn`);
		return;
	}
	if (!spawner) return;
	const { delegation } = spawner;
	if (!delegation.allowed) {
		ctx.refusals.add("type-not-allowed", `"${spawner.type}" may not spawn sub-agents: ${delegation.reason}`);
	} else if (delegation.subagents !== "*" && !delegation.subagents.some((name) => nameKey(name) === ctx.key)) {
		const may = delegation.subagents.length > 0 ? delegation.subagents.join(", ") : "none";
		ctx.refusals.add("type-not-allowed", `"${spawner.type}" may not spawn "${ctx.definition.name}": its subagents are ${may}`);
	}
}

/**
 * `subagents` (role > definition > `*`) and whether the child delegates: its definition's `tools`
 * named `subagent` and its depth is below `maxDepth`. A `subagents` that cannot be read refuses
 * the spawn when it would have won, like `capability` (ADR 0064): `*` would allow more.
 */
export function resolveDelegation(ctx: ResolutionContext, namesSubagent: boolean): TraceEntry {
	const { role, definition } = ctx;
	const slots = {
		role: loadedSlot("role", role?.keys.subagents, role?.invalid.subagents),
		definition: loadedSlot("definition", definition.keys.subagents, definition.invalid.subagents),
		default: { layer: "default" as const, state: "named" as const, value: "*", source: "default" },
	};
	const first = [slots.role, slots.definition].find((slot) => slot.state !== "not-named");
	if (first?.state === "invalid") {
		ctx.refusals.add("restriction-unread", `subagents ${show(first.value)} of the ${first.layer} (${first.source}) cannot be read, so cadre cannot honour the types it limits; fix it (\`*\`, \`none\` or a list of type names)`);
	}
	const picked = pickIn(ORDER.subagents, slots);
	const maxDepth = ctx.input.loaded.settings.maxDepth.value;
	const depth = depthOf(ctx.input.spawner);
	let reason: string | null = null;
	if (!namesSubagent) reason = `the tools of "${definition.name}" do not name ${SUBAGENT_TOOL}`;
	else if (depth >= maxDepth) reason = `it runs at depth ${depth}, and with maxDepth ${maxDepth} only runs at a depth below ${maxDepth} may spawn`;
	const value: Delegation = { allowed: reason === null, subagents: picked.value as "*" | string[], reason, maxDepth };
	return { ...picked, value };
}

const EVERY_KIND: ReadonlySet<ToolKind> = new Set<ToolKind>(["read", "write", "execute"]);

function kindsOf(mode: CapabilityMode | null): ReadonlySet<ToolKind> | null {
	return mode === null ? null : MODE_KEEPS[mode];
}

/** The mode that keeps what both keep (null = no filter, like `all`). */
export function intersectCapability(own: CapabilityMode | null, spawner: CapabilityMode | null): CapabilityMode | null {
	const a = kindsOf(own);
	const b = kindsOf(spawner);
	if (a === null) return spawner === null ? own : spawner;
	if (b === null) return own;
	const both = new Set([...a].filter((kind) => b.has(kind)));
	if (both.size === EVERY_KIND.size) return "all";
	if (both.has("write")) return "read-write";
	if (both.has("execute")) return "execute";
	return "read-only";
}

/** The capability trace under the spawner's: narrowed, with the cap, when the spawner keeps less. */
export function capCapability(entry: TraceEntry, spawner: SpawnerFacts | null | undefined): TraceEntry {
	if (!spawner) return entry;
	const own = entry.value as CapabilityMode | null;
	const narrowed = intersectCapability(own, spawner.capabilityMode);
	if (narrowed === own || (narrowed === "all" && own === null)) return entry;
	return { ...entry, value: narrowed, capped: { by: "parent", source: `parent ${spawner.type}`, asked: own } };
}

/** Isolation at least the spawner's: a worktree run's children run in worktrees too. */
export function capIsolation(entry: TraceEntry, spawner: SpawnerFacts | null | undefined): TraceEntry {
	if (spawner?.isolation !== "worktree" || entry.value === "worktree") return entry;
	return { ...entry, value: "worktree" satisfies IsolationMode, capped: { by: "parent", source: `parent ${spawner.type}`, asked: entry.value } };
}

/**
 * The tools trace under the spawner's: only the tools it has itself, and the delegation tools when
 * the child delegates. `asked` is what the child would have had under its own capability (when the
 * spawner's narrowed it): the trace names the cap when the spawner took tools away either way.
 */
export function capTools(entry: TraceEntry, spawner: SpawnerFacts | null | undefined, delegates: boolean, asked: string[] | null): TraceEntry {
	let tools = entry.value as string[];
	let capped = entry;
	if (spawner) {
		const has = new Set(spawner.tools);
		const kept = tools.filter((tool) => has.has(tool));
		const before = asked ?? tools;
		if (kept.length < before.length) capped = { ...entry, capped: { by: "parent", source: `parent ${spawner.type}`, asked: before } };
		tools = kept;
	}
	return { ...capped, value: delegates ? [...tools, ...DELEGATION_TOOLS] : tools };
}

/** Removes the delegation tools from a list: they come only from the resolved delegation. */
export function withoutDelegationTools<T extends string>(names: readonly T[]): T[] {
	return names.filter((name) => !DELEGATION_TOOLS.includes(name));
}
