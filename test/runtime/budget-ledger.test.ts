import { describe, expect, it } from "vitest";
import { createBudgetLedger } from "../../src/runtime/budget-ledger.js";

const cost = (c: number | null) => ({ tokens: null, cost: c, time: null });

describe("budget ledger", () => {
	it("a lead with cost 0.05 and 5 children asking 0.02: clamp, refuse, unused returns", () => {
		const ledger = createBudgetLedger(cost(null));
		expect(ledger.reserve("lead", cost(0.05)).ok).toBe(true);
		const results = [1, 2, 3, 4, 5].map((n) => ledger.reserve(`c${n}`, cost(0.02), "lead"));
		const reserved = results.map((r) => (r.ok ? (r.reserved.cost ?? 0) : 0));
		expect(reserved.reduce((a, b) => a + b, 0)).toBeLessThanOrEqual(0.05 + 1e-12);
		expect(results.some((r) => !r.ok)).toBe(true);
		ledger.release("c1", { tokens: 0, cost: 0.005 });
		expect(ledger.remaining("lead").cost).toBeCloseTo(0.015, 9);
	});
	it("uses the session pool without a spawning run", () => {
		const ledger = createBudgetLedger(cost(0.1));
		ledger.reserve("a", cost(0.04));
		expect(ledger.remaining().cost).toBeCloseTo(0.06, 9);
		ledger.release("a", { tokens: 0, cost: 0.01 });
		expect(ledger.remaining().cost).toBeCloseTo(0.09, 9);
	});
});

describe("budget ledger: a run's own spending and its children's", () => {
	it("a lead charged for what it spends: its children cannot reserve that, and its room shrinks by what they hold", () => {
		const ledger = createBudgetLedger(cost(null));
		ledger.reserve("lead", cost(0.05));
		ledger.charge("lead", { tokens: 0, cost: 0.02 });
		expect(ledger.remaining("lead").cost).toBe(0.03);
		const kid = ledger.reserve("kid", cost(0.05), "lead");
		expect(kid.ok && kid.reserved.cost).toBe(0.03);
		// The lead itself may now spend only what it spent: its children hold the rest.
		expect(ledger.room("lead")?.cost).toBe(0.02);
		ledger.release("kid", { tokens: 0, cost: 0.01 });
		expect(ledger.room("lead")?.cost).toBe(0.04);
		// Charges are totals: the same total twice charges once.
		ledger.charge("lead", { tokens: 0, cost: 0.03 });
		ledger.charge("lead", { tokens: 0, cost: 0.03 });
		expect(ledger.remaining("lead").cost).toBe(0.01);
	});

	it("the tree never spends more than the session pool, even when a lead ends before its child", () => {
		const ledger = createBudgetLedger(cost(0.1));
		ledger.reserve("lead", cost(0.06));
		ledger.reserve("kid", cost(0.04), "lead");
		ledger.release("lead", { tokens: 0, cost: 0.01 });
		// 0.06 − 0.01 spent − 0.04 held by the kid: 0.01 back; the kid now answers to the session.
		expect(ledger.remaining().cost).toBe(0.05);
		ledger.release("kid", { tokens: 0, cost: 0.03 });
		expect(ledger.remaining().cost).toBe(0.06);
		// 0.01 (lead) + 0.03 (kid) spent of 0.1.
	});
});

describe("budget ledger: what a spawner lent (ADR 0179)", () => {
	const costOnly = (c: number | null) => ({ tokens: null, cost: c, time: null });
	it("counts what its children reserved and what came back, says whether one is live, and wakes a waiter at each end", async () => {
		const ledger = createBudgetLedger(costOnly(null));
		ledger.reserve("lead", costOnly(0.05));
		expect(ledger.live("lead")).toBe(false);
		ledger.reserve("c1", costOnly(0.02), "lead");
		ledger.reserve("c2", costOnly(0.02), "lead");
		expect(ledger.live("lead")).toBe(true);
		let woken = 0;
		const waited = ledger.released("lead").then(() => woken++);
		ledger.release("c1", { tokens: 0, cost: 0.005 });
		await waited;
		expect(woken).toBe(1);
		ledger.release("c2", { tokens: 0, cost: 0.02 });
		expect(ledger.live("lead")).toBe(false);
		expect(ledger.lent("lead")).toEqual({ reserved: { tokens: 0, cost: 0.04 }, returned: { tokens: 0, cost: 0.015 } });
		ledger.release("lead", { tokens: 0, cost: 0 });
		expect(ledger.lent("lead")).toBeNull();
	});
});
