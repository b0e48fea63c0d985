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
		expect(details).toMatchObject({ status: "stopped", stopReason: "budget", budget: { reserved: { tokens: 1 }, stoppedBy: "tokens", source: "request" } });
		expect(details.budget.used.tokens).toBeGreaterThan(1);
		// The answer is in the text the model reads; the stored details leave it to the record (ADR 0193).
		expect(result?.text).toMatch(/\n\nstill looking 1$/);
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

describe("a tree's budget through the subagent tool (ADR 0179)", () => {
	const LEAD = "---\ndescription: Leads\ntools: [read, subagent]\nsubagents: [explore]\n---\nLead.\n";
	const started = (turn: { messages: unknown[] }) => [...JSON.stringify(turn.messages).matchAll(/Started sub-agent (\S+?)[\s."\\]/g)].map((match) => match[1] as string);

	it("a background lead that lent out all its budget waits for its children without holding the one slot (maxConcurrent 1)", async () => {
		parent = await createParent({
			agentFiles: { "agents/lead.md": LEAD },
			subagentSettings: { maxConcurrent: 1 },
			script: (turn) => {
				if (turn.agent === "explore") return fauxAssistantMessage("explored");
				if (turn.agent === "lead") {
					if (turn.step === 0) {
						const spawn = (i: number) => fauxToolCall("subagent", { prompt: `part ${i}`, description: `part ${i}`, subagent_type: "explore", run_in_background: true, budget: { tokens: 60000 } });
						return fauxAssistantMessage([spawn(1), spawn(2)], { stopReason: "toolUse" });
					}
					return fauxAssistantMessage(`lead done after ${started(turn).length} spawns`);
				}
				if (turn.step === 0) return fauxAssistantMessage([fauxToolCall("subagent", { prompt: "lead", description: "lead", subagent_type: "lead", run_in_background: true, budget: { tokens: 100000 } })], { stopReason: "toolUse" });
				if (turn.step === 1) return fauxAssistantMessage([fauxToolCall("get_subagent_result", { agent_id: started(turn), wait: true })], { stopReason: "toolUse" });
				return fauxAssistantMessage("root done");
			},
		});
		await parent.session.prompt("go");
		const [result] = toolResults(parent.session, "get_subagent_result");
		const [lead] = result?.details as { type: string; status: string; text: string; budget: { children: { reserved: { tokens: number }; returned: { tokens: number } } } }[];
		expect(lead).toMatchObject({ type: "lead", status: "completed" });
		expect(result?.text).toMatch(/\n\nlead done after 2 spawns$/);
		// The second child got what the first left (clamped); all it did not use came back before the lead's next request.
		expect(lead?.budget.children.reserved.tokens).toBeGreaterThan(95000);
		expect(lead?.budget.children.returned.tokens).toBeGreaterThan(85000);
		// The lead asked its model again only after both children ended.
		const order = parent.requests.map((turn) => `${turn.agent}:${turn.step}`);
		expect(order.indexOf("lead:1")).toBeGreaterThan(order.lastIndexOf("explore:0"));
	}, 30_000);
});

