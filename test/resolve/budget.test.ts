/**
 * Budgets (issue 22) over plain data: one precedence per dimension (request > role > definition >
 * settings budget.default), the settings ceiling and the spawning run's budget as caps the trace
 * names, bad request values refused, and the pure reservation helper: clamp or refuse
 * `budget-exhausted`, release returns what was not used.
 */
import { describe, expect, it } from "vitest";
import type { BudgetSettings } from "../../src/files/types.ts";
import { releaseBudget, reserveBudget, sessionBudget } from "../../src/resolve/budget.ts";
import { spawnerFacts } from "../../src/resolve/delegation.ts";
import { resolve } from "../../src/resolve/resolve.ts";
import { entry, input, loaded } from "./support/build.ts";

const USER = "settings:/agent/subagents.json";
const budgets = (b: Partial<BudgetSettings>): { budget: BudgetSettings } => ({ budget: { default: {}, ceiling: {}, session: {}, ...b } });
const worker = entry("definition", { name: "worker", keys: { budget: { tokens: 20000, cost: 0.1 } } });

describe("effective budget", () => {
	it("picks each dimension by request > role > definition > default, with its source", () => {
		const role = entry("role", { name: "worker", keys: { budget: { cost: 0.05 } } });
		const l = loaded({ definitions: [worker], roles: [role], settings: budgets({ default: { time: { value: 600, source: `${USER}:3` } } }) });
		const result = resolve(input({ type: "worker", request: { budget: { tokens: 8000 } }, loaded: l }));
		expect(result.config?.budget).toEqual({ tokens: 8000, cost: 0.05, time: 600 });
		const dims = result.trace.budget?.dimensions;
		expect(dims?.tokens).toMatchObject({ value: 8000, layer: "request", candidates: [expect.anything(), { layer: "definition", value: 20000, outcome: "overridden" }, expect.anything()] });
		expect(dims?.cost).toMatchObject({ value: 0.05, layer: "role", source: ".pi/roles/worker.md:2" });
		expect(dims?.time).toMatchObject({ value: 600, layer: "default", source: `${USER}:3` });
	});

	it("is unlimited when nothing names one", () => {
		expect(resolve(input()).config?.budget).toEqual({ tokens: null, cost: null, time: null });
	});

	it("caps a request asking for more than the user's ceiling; the trace says what capped it and what was asked", () => {
		const l = loaded({ definitions: [worker], settings: budgets({ ceiling: { tokens: { value: 10000, source: `${USER}:4` } } }) });
		const result = resolve(input({ type: "worker", request: { budget: { tokens: 50000 } }, loaded: l }));
		expect(result.refused).toBeNull();
		expect(result.config?.budget.tokens).toBe(10000);
		expect(result.trace.budget?.dimensions?.tokens).toMatchObject({ value: 10000, layer: "request", capped: { by: "ceiling", source: `${USER}:4`, asked: 50000 } });
	});

	it("gives the ceiling as the limit of a dimension nothing else names", () => {
		const l = loaded({ settings: budgets({ ceiling: { cost: { value: 2, source: `${USER}:4` } } }) });
		const result = resolve(input({ loaded: l }));
		expect(result.config?.budget.cost).toBe(2);
		expect(result.trace.budget?.dimensions?.cost?.capped).toMatchObject({ by: "ceiling", asked: null });
	});

	it("caps a nested spawn by its spawner's budget (capped by parent lead)", () => {
		const lead = entry("definition", { name: "lead", keys: { tools: ["read", "subagent"], budget: { cost: 0.05 } } });
		const l = loaded({ definitions: [lead, worker] });
		const spawner = spawnerFacts("lead", resolve(input({ type: "lead", loaded: l })).config!);
		const result = resolve(input({ type: "worker", loaded: l, spawner }));
		expect(result.config?.budget).toMatchObject({ tokens: 20000, cost: 0.05 });
		expect(result.trace.budget?.dimensions?.cost?.capped).toMatchObject({ by: "parent", source: "parent lead", asked: 0.1 });
	});

	it.each([[{ tokens: -5 }], [{ tokens: 1.5 }], [{ money: 3 }], ["lots"]])("refuses request budget %j (bad-request, saying what is valid)", (budget) => {
		const result = resolve(input({ request: { budget } }));
		expect(result.refused?.code).toBe("bad-request");
		expect(result.refused?.message).toContain("budget");
	});

	it("refuses a definition whose budget cannot be read, rather than run it unbounded", () => {
		const bad = entry("definition", { name: "bad", invalid: { budget: { tokens: "many" } } });
		const result = resolve(input({ type: "bad", loaded: loaded({ definitions: [bad] }) }));
		expect(result.refused?.code).toBe("restriction-unread");
		expect(result.refused?.message).toContain("budget");
	});
});

describe("reservations", () => {
	const none = { tokens: null, cost: null, time: null };

	it("reserves the requested budget from the parent's remaining and reports what is left", () => {
		const r = reserveBudget({ tokens: null, cost: 0.05, time: null }, { tokens: null, cost: 0.02, time: 60 });
		expect(r).toMatchObject({ ok: true, reserved: { cost: 0.02, time: 60, tokens: null }, clamped: [], remaining: { cost: 0.03 } });
	});

	it("clamps a request for more than remains, and says so; a dimension the child leaves open takes what remains", () => {
		const r = reserveBudget({ tokens: 1000, cost: 0.01, time: 30 }, { tokens: null, cost: 0.02, time: 60 });
		expect(r).toMatchObject({ ok: true, reserved: { tokens: 1000, cost: 0.01, time: 30 }, clamped: ["cost", "time"], remaining: { tokens: 0, cost: 0 } });
	});

	it("keeps time a deadline: a child's time never comes off the parent's remaining", () => {
		const r = reserveBudget({ tokens: null, cost: null, time: 100 }, { tokens: null, cost: null, time: 40 });
		expect(r.ok && r.remaining.time).toBe(100);
	});

	it("refuses budget-exhausted when nothing remains in a dimension, naming it", () => {
		const r = reserveBudget({ tokens: null, cost: 0, time: null }, none);
		expect(r.ok).toBe(false);
		if (r.ok) return;
		expect(r.refusal.code).toBe("budget-exhausted");
		expect(r.exhausted).toEqual(["cost"]);
		expect(r.refusal.message).toContain("cost");
	});

	it("five children asking 0.02 under a lead of 0.05: two reserved, one clamped, two refused; the tree never passes 0.05", () => {
		let remaining = { tokens: null, cost: 0.05, time: null } as { tokens: number | null; cost: number | null; time: number | null };
		const outcomes: string[] = [];
		let total = 0;
		for (let i = 0; i < 5; i++) {
			const r = reserveBudget(remaining, { tokens: null, cost: 0.02, time: null });
			if (!r.ok) {
				outcomes.push("refused");
				continue;
			}
			outcomes.push(r.clamped.length > 0 ? "clamped" : "reserved");
			total += r.reserved.cost ?? 0;
			remaining = r.remaining;
		}
		expect(outcomes).toEqual(["reserved", "reserved", "clamped", "refused", "refused"]);
		expect(total).toBeLessThanOrEqual(0.05 + 1e-12);
	});

	it("release returns what a run did not use (never more than it reserved)", () => {
		const r = reserveBudget({ tokens: 10000, cost: 0.05, time: null }, { tokens: 4000, cost: 0.02, time: null });
		if (!r.ok) throw new Error("reserved");
		const back = releaseBudget(r.remaining, r.reserved, { tokens: 1500, cost: 0.03 });
		expect(back.tokens).toBe(8500);
		expect(back.cost).toBeCloseTo(0.03, 10);
		expect(back.time).toBeNull();
	});

	it("sessionBudget is settings budget.session as a Budget", () => {
		expect(sessionBudget(budgets({ session: { cost: { value: 3, source: "x" } } }).budget)).toEqual({ tokens: null, cost: 3, time: null });
	});
});
