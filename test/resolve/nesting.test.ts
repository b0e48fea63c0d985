/**
 * Nested spawns (issue 21) resolved over plain data: who may delegate (the definition's `tools`
 * names `subagent`, depth below settings `maxDepth`), which types (`subagents`, role > definition >
 * `*`), the refusals `type-not-allowed` and `depth-exceeded`, and no escalation down the tree —
 * capability and tools intersected with the spawning run's, isolation at least its, the narrowing
 * in the trace.
 */
import { describe, expect, it } from "vitest";
import { resolve } from "../../src/resolve/resolve.ts";
import { spawnableTypes, spawnerFacts } from "../../src/resolve/delegation.ts";
import type { ResolveInput, SpawnerFacts } from "../../src/resolve/types.ts";
import { entry, input, loaded, settings } from "./support/build.ts";

const lead = entry("definition", { name: "lead", keys: { tools: ["read", "grep", "subagent"], capability: "read-only", subagents: ["explore", "worker"] } });
const worker = entry("definition", { name: "worker", keys: { capability: "all", tools: ["read", "bash", "edit", "write"] } });
const files = (more: Parameters<typeof loaded>[0] = {}) => loaded({ ...more, definitions: [lead, worker, ...(more.definitions ?? [])] });

/** Resolves `type` as the root's child, then returns the facts it would spawn with. */
function asSpawner(type: string, overrides: Partial<ResolveInput> = {}): SpawnerFacts {
	const result = resolve(input({ type, loaded: files(), ...overrides }));
	expect(result.refused).toBeNull();
	return spawnerFacts(result.type, result.config!);
}

describe("who may delegate", () => {
	it("gives a child the three delegation tools when its definition's tools name subagent, at depth 1 of 2", () => {
		const result = resolve(input({ type: "lead", loaded: files() }));
		expect(result.config?.depth).toBe(1);
		expect(result.config?.tools).toEqual(["read", "grep", "subagent", "get_subagent_result", "steer_subagent"]);
		expect(result.config?.delegation).toMatchObject({ allowed: true, subagents: ["explore", "worker"], maxDepth: 2 });
		expect(result.trace.delegation?.source).toBe(".pi/agents/lead.md:4");
	});

	it("never gives them to a child whose tools are inherited from the parent, even when the parent has them", () => {
		const result = resolve(input({ type: "general-purpose", loaded: files(), parent: { ...input().parent, activeTools: ["read", "bash", "subagent", "steer_subagent"] } }));
		expect(result.config?.tools).toEqual(["read", "bash"]);
		expect(result.config?.delegation).toMatchObject({ allowed: false });
		expect(result.config?.delegation.reason).toContain("tools");
	});

	it("gives a child that names subagent no delegation tools at maxDepth 1, saying why", () => {
		const result = resolve(input({ type: "lead", loaded: files({ settings: { maxDepth: { value: 1, source: "settings:agent/subagents.json:2" } } }) }));
		expect(result.config?.tools).toEqual(["read", "grep"]);
		expect(result.config?.delegation.allowed).toBe(false);
		expect(result.config?.delegation.reason).toContain("maxDepth 1");
	});

	it("lets a role's subagents narrow the definition's", () => {
		const role = entry("role", { name: "lead", keys: { subagents: ["explore"] } });
		const result = resolve(input({ type: "lead", loaded: files({ roles: [role] }) }));
		expect(result.config?.delegation.subagents).toEqual(["explore"]);
		expect(result.trace.delegation?.layer).toBe("role");
	});

	it("refuses a role or definition whose subagents cannot be read (restriction-unread), rather than allow every type", () => {
		const bad = entry("definition", { name: "bad", keys: { tools: ["read", "subagent"] }, invalid: { subagents: 3 } });
		const result = resolve(input({ type: "bad", loaded: files({ definitions: [bad] }) }));
		expect(result.refused?.code).toBe("restriction-unread");
		expect(result.refused?.message).toContain("subagents");
	});

	it("spawnableTypes lists only what the child may spawn: its subagents among the enabled types, or every enabled type for *", () => {
		const l = files();
		const leadConfig = resolve(input({ type: "lead", loaded: l })).config!;
		expect(spawnableTypes(l, leadConfig.delegation)).toEqual(["explore", "worker"]);
		const star = entry("definition", { name: "star", keys: { tools: ["read", "subagent"] } });
		const l2 = files({ definitions: [star], settings: { toggle: Object.assign(Object.create(null), { plan: { value: false, source: "x" } }) } });
		expect(spawnableTypes(l2, resolve(input({ type: "star", loaded: l2 })).config!.delegation)).toEqual(["explore", "general-purpose", "lead", "star", "worker"]);
		expect(spawnableTypes(l, resolve(input({ type: "explore", loaded: l })).config!.delegation)).toEqual([]);
	});
});

describe("refusals of a nested spawn", () => {
	it("refuses a type the spawner's subagents do not list: type-not-allowed, naming what it may spawn", () => {
		const result = resolve(input({ type: "general-purpose", loaded: files(), spawner: asSpawner("lead") }));
		expect(result.refused?.code).toBe("type-not-allowed");
		expect(result.refused?.message).toContain("lead");
		expect(result.refused?.message).toContain("explore, worker");
	});

	it("refuses a spawn from a run that may not delegate at all (type-not-allowed)", () => {
		const result = resolve(input({ type: "explore", loaded: files(), spawner: asSpawner("explore") }));
		expect(result.refused?.code).toBe("type-not-allowed");
	});

	it("refuses a chain past maxDepth: depth-exceeded, first among the refusals", () => {
		const deep: SpawnerFacts = { ...asSpawner("lead"), depth: 2 };
		const result = resolve(input({ type: "general-purpose", loaded: files(), spawner: deep }));
		expect(result.refused?.code).toBe("depth-exceeded");
		expect(result.refused?.message).toContain("maxDepth 2");
		expect(result.config?.depth).toBe(3);
	});

	it("keeps persona fail-closed at depth 2", () => {
		const result = resolve(input({ type: "explore", request: { persona: "missing" }, loaded: files(), spawner: asSpawner("lead") }));
		expect(result.refused?.code).toBe("persona-error");
	});
});

describe("no escalation", () => {
	it("makes a read-only lead's capability: all grandchild read-only, its tools the intersection, with the narrowing in the trace", () => {
		const result = resolve(input({ type: "worker", loaded: files(), spawner: asSpawner("lead") }));
		expect(result.refused).toBeNull();
		expect(result.config?.depth).toBe(2);
		expect(result.config?.capabilityMode).toBe("read-only");
		expect(result.trace.capabilityMode).toMatchObject({ layer: "definition", capped: { by: "parent", source: "parent lead", asked: "all" } });
		expect(result.config?.tools).toEqual(["read"]);
		expect(result.trace.tools?.capped).toMatchObject({ by: "parent", source: "parent lead", asked: ["read", "bash", "edit", "write"] });
		expect(result.config?.delegation.allowed).toBe(false);
	});

	it("takes away a tool the spawner does not have, whatever the capability", () => {
		const noBash = entry("definition", { name: "nobash", keys: { tools: ["read", "edit", "subagent"], subagents: "*" } });
		const l = files({ definitions: [noBash] });
		const spawner = spawnerFacts("nobash", resolve(input({ type: "nobash", loaded: l })).config!);
		const result = resolve(input({ type: "worker", loaded: l, spawner }));
		expect(result.config?.tools).toEqual(["read", "edit"]);
	});

	it("intersects capability modes: read-write under execute is read-only; a request cannot widen it", () => {
		const exec = entry("definition", { name: "exec", keys: { tools: ["read", "bash", "edit", "subagent"], capability: "execute", subagents: "*" } });
		const l = files({ definitions: [exec] });
		const spawner = spawnerFacts("exec", resolve(input({ type: "exec", loaded: l })).config!);
		const result = resolve(input({ type: "worker", request: { capability: "read-write" }, loaded: l, spawner }));
		expect(result.config?.capabilityMode).toBe("read-only");
		expect(result.trace.capabilityMode?.capped?.asked).toBe("read-write");
	});

	it("keeps a worktree spawner's children in a worktree, even when the request says none", () => {
		const iso = entry("definition", { name: "iso", keys: { tools: ["read", "subagent"], isolation: "worktree", subagents: "*" } });
		const l = files({ definitions: [iso] });
		const spawner = spawnerFacts("iso", resolve(input({ type: "iso", loaded: l })).config!);
		const result = resolve(input({ type: "explore", request: { isolation: "none" }, loaded: l, spawner }));
		expect(result.config?.isolation).toBe("worktree");
		expect(result.trace.isolation?.capped).toMatchObject({ by: "parent", source: "parent iso", asked: "none" });
	});

	it("leaves a root child's trace without caps", () => {
		const result = resolve(input({ type: "worker", loaded: loaded({ definitions: [worker], settings: settings() }) }));
		expect(result.trace.capabilityMode?.capped).toBeUndefined();
		expect(result.config?.capabilityMode).toBe("all");
	});
});
