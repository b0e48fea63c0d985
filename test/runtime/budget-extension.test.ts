/**
 * Budgets through the pi extension (issue 22): the `subagent` tool takes `budget`, the child is
 * held to it in-process (the faux provider reports usage for every answer), and settings
 * `budget.session` is the pool the parent's children reserve from — refused `budget-exhausted`
 * once it is spent. Faux answers are routed by the session's context, never by arrival order.
 */
import { afterEach, describe, expect, it } from "vitest";
import { createParent, fauxAssistantMessage, fauxToolCall, type Parent, toolResults } from "./harness.ts";

let parent: Parent | null = null;
afterEach(() => {
	parent?.dispose();
	parent = null;
});

/** A child that never finishes on its own; the parent spawns it (with `budget`) `spawns` times. */
function script(budget: Record<string, number> | undefined, spawns: number) {
	return (turn: { agent: string; step: number }) => {
		if (turn.agent === "explore") return fauxAssistantMessage([{ type: "text", text: `still looking ${turn.step + 1}` }, fauxToolCall("ls", { path: "." })], { stopReason: "toolUse" });
		if (turn.step < spawns) return fauxAssistantMessage([fauxToolCall("subagent", { prompt: "look", description: "look around", subagent_type: "explore", ...(budget ? { budget } : {}) })], { stopReason: "toolUse" });
		return fauxAssistantMessage("parent done");
	};
}

describe("budgets through the subagent tool", () => {
	it("a child with budget {tokens: 1} makes one request and stops with its partial answer", async () => {
		parent = await createParent({ script: script({ tokens: 1 }, 1) });
		await parent.session.prompt("go");
		const [result] = toolResults(parent.session, "subagent");
		const details = result?.details as { status: string; stopReason: string; text: string; budget: { reserved: { tokens: number }; used: { tokens: number }; stoppedBy: string; source: string } };
		expect(details).toMatchObject({ status: "stopped", stopReason: "budget", text: "still looking 1", budget: { reserved: { tokens: 1 }, stoppedBy: "tokens", source: "request" } });
		expect(details.budget.used.tokens).toBeGreaterThan(1);
		expect(parent.requests.filter((turn) => turn.agent === "explore")).toHaveLength(1);
		expect(result?.text).toMatch(/Budget: \d+\/1 tokens \(from request; stopped by its tokens limit\)\./);
	});

	it("settings budget.session: the first child takes the pool, spends it, and the next spawn is refused budget-exhausted", async () => {
		parent = await createParent({ script: script(undefined, 2), subagentSettings: { budget: { session: { tokens: 1 } } } });
		await parent.session.prompt("go");
		const [first, second] = toolResults(parent.session, "subagent");
		expect(first?.details).toMatchObject({ status: "stopped", stopReason: "budget", budget: { limit: { tokens: null }, reserved: { tokens: 1 } } });
		expect(second?.isError).toBe(true);
		expect(second?.text).toMatch(/Spawn refused \(budget-exhausted\): no budget remains for another run: tokens \(0 tokens left\)/);
		expect(parent.requests.filter((turn) => turn.agent === "explore")).toHaveLength(1);
	});
});
