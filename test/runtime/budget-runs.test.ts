/**
 * Budgets in the run registry (issue 22): each run reserves from the session pool (settings
 * `budget.session`) when it is spawned — clamped to what remains, refused `budget-exhausted` when
 * nothing does — and what it did not use comes back when it ends. Scripted child handles: the
 * gate's count is what `budget()` reports.
 */
import { describe, expect, it } from "vitest";
import type { Budget } from "../../src/core/budget.ts";
import type { ChildHandle } from "../../src/runtime/pi/child-session.ts";
import { formatResult, notificationText, runResult } from "../../src/runtime/result.ts";
import { createRunRegistry, type SpawnPlan } from "../../src/runtime/runs.ts";

/** A child that answers once `release` is called, having used `tokens`. */
function child(tokens: number, stoppedBy: "tokens" | null = null): { handle: ChildHandle; release: () => void } {
	let release = () => {};
	const ended = new Promise<void>((resolve) => (release = resolve));
	const handle: ChildHandle = {
		transcript: null,
		subscribe: () => () => {},
		run: () => ended,
		steer: async () => {},
		abort: async () => {},
		lastText: () => `used ${tokens}`,
		structured: () => null,
		usage: () => ({ input: tokens, output: 0, cacheRead: 0, cacheWrite: 0, cost: 0 }),
		contextUsage: () => null,
		messages: () => [],
		dispose: () => {},
		diagnostics: () => [],
		unread: async () => [],
		budget: () => ({ used: { tokens, cost: 0, time: 0 }, stoppedBy, warned: false }),
	};
	return { handle, release };
}

function plan(handle: ChildHandle, budget: Partial<Budget>): SpawnPlan {
	return {
		type: "explore",
		description: "look",
		prompt: "p",
		config: { maxTurns: null, tools: ["read"], model: "faux/m", capabilityMode: null, persona: null, budget: { tokens: null, cost: null, time: null, ...budget } } as unknown as SpawnPlan["config"],
		trace: { budget: { value: budget, layer: "request", source: "request", candidates: [] } } as unknown as SpawnPlan["trace"],
		ignored: [],
		diagnostics: [],
		cwd: "/tmp",
		resumeOf: null,
		createChild: async () => handle,
	};
}

describe("budget reservations in the registry (budget.session)", () => {
	it("two siblings: the second is clamped to what remains, a third is refused, and what the first did not use comes back", async () => {
		const registry = createRunRegistry({ maxConcurrent: 4, emit: () => {}, sessionBudget: { tokens: 5000, cost: null, time: null } });
		const a = child(1000);
		const b = child(2000, "tokens");
		const first = await registry.spawn(plan(a.handle, { tokens: 3000 }), { background: true });
		expect(first.run.budget).toMatchObject({ limit: { tokens: 3000 }, reserved: { tokens: 3000 }, clamped: [], source: "request" });
		const second = await registry.spawn(plan(b.handle, { tokens: 3000 }), { background: true });
		expect(second.run.budget).toMatchObject({ limit: { tokens: 3000 }, reserved: { tokens: 2000 }, clamped: ["tokens"] });
		expect(runResult(second.run, 1000).warnings).toEqual([
			"warning budget-clamped it asked for a budget of 3000 tokens but only 2000 tokens remained of the session's budget; it runs with what remained (what running children do not use comes back when they end; or raise the budget it reserves from)",
		]);
		expect(registry.budgetRemaining().tokens).toBe(0);
		await expect(registry.spawn(plan(child(1).handle, { tokens: 100 }), { background: true })).rejects.toThrow(/^Spawn refused \(budget-exhausted\): no budget remains/);
		a.release();
		const endedA = await first.done;
		expect(endedA).toMatchObject({ state: "completed", stopReason: null, budget: { used: { tokens: 1000 } } });
		// 3000 reserved, 1000 used: 2000 back in the pool.
		expect(registry.budgetRemaining().tokens).toBe(2000);
		b.release();
		const endedB = await second.done;
		// The gate stopped it at its limit: stopped, budget, its last answer as the result.
		expect(endedB).toMatchObject({ state: "stopped", stopReason: "budget", text: "used 2000", budget: { stoppedBy: "tokens" } });
		expect(endedB.error).toMatch(/tokens budget \(2000 tokens\) is spent/);
		expect(registry.budgetRemaining().tokens).toBe(2000);
		// With room again, a new run reserves from it.
		const third = await registry.spawn(plan(child(5).handle, { tokens: 500 }), { background: true });
		expect(third.run.budget?.reserved.tokens).toBe(500);
		expect(registry.budgetRemaining().tokens).toBe(1500);
	});

	it("a run that names no budget under a limited pool takes what remains; a share given by the host takes that instead", async () => {
		const registry = createRunRegistry({ maxConcurrent: 4, emit: () => {}, sessionBudget: { tokens: null, cost: 0.05, time: null } });
		const open = await registry.spawn(plan(child(1).handle, {}), { background: true, budgetShare: { cost: 0.01 } });
		expect(open.run.budget?.reserved.cost).toBe(0.01);
		const rest = await registry.spawn(plan(child(1).handle, {}), { background: true });
		expect(rest.run.budget?.reserved.cost).toBe(0.04);
		expect(registry.budgetRemaining().cost).toBe(0);
	});

	it("events, the result text and the notification carry the budget", async () => {
		const events: { name: string; payload: Record<string, unknown> }[] = [];
		const registry = createRunRegistry({ maxConcurrent: 4, emit: (name, payload) => events.push({ name, payload }), sessionBudget: { tokens: 4000, cost: null, time: null } });
		const c = child(4100, "tokens");
		const started = await registry.spawn(plan(c.handle, { tokens: 5000 }), { background: true });
		c.release();
		const run = await started.done;
		const failed = events.find((event) => event.name === "cadre:failed");
		expect(failed?.payload).toMatchObject({ status: "stopped", stopReason: "budget", budget: { limit: { tokens: 5000 }, reserved: { tokens: 4000 }, used: { tokens: 4100 }, source: "request", clamped: ["tokens"] } });
		expect(events.find((event) => event.name === "cadre:created")?.payload).toMatchObject({ budget: { reserved: { tokens: 4000 } } });
		const line = "Budget: 4100/4000 tokens (from request; clamped to what remained: tokens; stopped by its tokens limit).";
		expect(formatResult(runResult(run, 1000))).toContain(line);
		expect(notificationText(run)).toContain(line);
		// It went over by its last response: nothing comes back.
		expect(registry.budgetRemaining().tokens).toBe(0);
	});

	it("a run with a spawning run (its parentId) reserves from that run's remaining: a lead of $0.05 and five children of $0.02", async () => {
		const registry = createRunRegistry({ maxConcurrent: 8, emit: () => {} });
		const leader = child(0);
		const bound: { room: (() => Budget | null) | null } = { room: null };
		leader.handle.budgetRoom = (next) => (bound.room = next);
		const lead = await registry.spawn(plan(leader.handle, { cost: 0.05 }), { background: true });
		await new Promise((resolve) => setTimeout(resolve, 5));
		expect(bound.room?.()?.cost).toBe(0.05);
		const cost = (usedCost: number) => {
			const c = child(0);
			c.handle.budget = () => ({ used: { tokens: 0, cost: usedCost, time: 0 }, stoppedBy: null, warned: false });
			return c;
		};
		const kids = [cost(0.005), cost(0.02), cost(0.01)];
		const started = [];
		for (const kid of kids) started.push(await registry.spawn(plan(kid.handle, { cost: 0.02 }), { background: true, parentId: lead.run.id }));
		expect(started.map((s) => s.run.budget?.reserved.cost)).toEqual([0.02, 0.02, 0.01]);
		expect(started[2]?.run.budget?.clamped).toEqual(["cost"]);
		for (const _ of [4, 5]) await expect(registry.spawn(plan(child(0).handle, { cost: 0.02 }), { background: true, parentId: lead.run.id })).rejects.toThrow(/budget-exhausted/);
		// The session pool is unlimited and untouched by the children: they reserve from the lead.
		expect(registry.budgetRemaining().cost).toBeNull();
		expect(registry.budgetRemaining(lead.run.id).cost).toBe(0);
		// The lead's own gate is held to what its children leave it: nothing now.
		expect(bound.room?.()?.cost).toBe(0);
		kids[0]?.release();
		await started[0]?.done;
		// 0.02 reserved, 0.005 used: 0.015 back to the lead.
		expect(registry.budgetRemaining(lead.run.id).cost).toBe(0.015);
		expect(bound.room?.()?.cost).toBe(0.015);
		for (const kid of kids.slice(1)) kid.release();
		await Promise.all(started.map((s) => s.done));
		expect(registry.budgetRemaining(lead.run.id).cost).toBe(0.015);
	});

	it("without any budget nothing is reserved and the run has none", async () => {
		const registry = createRunRegistry({ maxConcurrent: 4, emit: () => {} });
		const c = child(10);
		const started = await registry.spawn(plan(c.handle, {}), { background: true });
		c.release();
		expect((await started.done).budget).toBeNull();
	});
});
