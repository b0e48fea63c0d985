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
