/**
 * Budgets that hold (issue 22), end to end: the real `bin/cadre.js` against the chat-completions
 * stub on 127.0.0.1, whose replies carry usage, with a price in `models.json` so pi computes the
 * cost. A child that would go on forever (a tool call in every reply) is held to its budget: the
 * wrap-up steer at 80%, no request past the limit, `stopped` with `stopReason: "budget"` and its
 * last answer. Replies are routed by the request's content, never by arrival order.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ChatRequest, type ChatServer, startChatServer } from "../support/chat-server.ts";
import { cadre, runRecords, runWorld } from "../support/cadre-run.ts";

let server: ChatServer;
beforeAll(async () => {
	server = await startChatServer(() => ({ text: "unscripted" }));
});
afterAll(async () => {
	await server.close();
});

/** `model-a` at $10 per million input and output tokens: a 2,000-token reply costs $0.02. */
function pricedModels(baseUrl: string): string {
	const cost = { input: 10, output: 10, cacheRead: 0, cacheWrite: 0 };
	return JSON.stringify({
		providers: { stub: { baseUrl, api: "openai-completions", apiKey: "stub-key", models: [{ id: "model-a", name: "model-a", reasoning: false, input: ["text"], contextWindow: 128000, maxTokens: 4096, cost }] } },
	});
}

const WRAP_UP = /(\d+)% of your budget is used; wrap up/;

/** A child that never stops on its own: every reply calls `ls` again, 2,000 tokens each; its task marks its requests. */
function endless(marker: string) {
	return (request: ChatRequest) => {
		const mine = request.messages.some((message) => JSON.stringify(message.content ?? "").includes(marker));
		if (!mine) return { text: "not mine" };
		return { text: `${marker} partial answer ${request.step + 1}`, toolCalls: [{ name: "ls", arguments: { path: "." } }], usage: { prompt: 1500, completion: 500 } };
	};
}

const mineOf = (marker: string) => server.requests.filter((request) => request.messages.some((message) => JSON.stringify(message.content ?? "").includes(marker)));

describe("cadre run: a child held to its budget", () => {
	it("tokens 5000, 2,000 a reply: the wrap-up steer at 80%, no request past the limit, stopped/budget with the partial answer", async () => {
		const world = runWorld("budget-tokens-", server.baseUrl, { files: { "agent/models.json": pricedModels(server.baseUrl) } });
		server.setScript(endless("task-tokens"));
		const run = await cadre(world, ["run", "explore", "task-tokens: look around", "--budget", "tokens=5000", "--json"]);
		expect(run.code, run.stderr).toBe(1);
		const result = JSON.parse(run.stdout);
		expect(result).toMatchObject({ status: "stopped", stopReason: "budget", text: "task-tokens partial answer 3" });
		expect(result.budget).toMatchObject({ limit: { tokens: 5000 }, reserved: { tokens: 5000 }, source: "request", stoppedBy: "tokens", warned: true });
		// used ≤ limit + one response; and no request went out once the limit was reached.
		expect(result.budget.used.tokens).toBe(6000);
		expect(result.budget.used.tokens).toBeLessThanOrEqual(5000 + 2000);
		const mine = mineOf("task-tokens");
		expect(mine).toHaveLength(3);
		// The one wrap-up steer: in the third request (after 4,000 of 5,000), not before, and only once.
		expect(JSON.stringify(mine[1]?.messages)).not.toMatch(WRAP_UP);
		expect(JSON.stringify(mine[2]?.messages).match(new RegExp(WRAP_UP.source, "g"))).toHaveLength(1);
		expect(JSON.stringify(mine[2]?.messages)).toContain("80% of your budget is used");
		expect(result.error).toMatch(/tokens budget \(5000 tokens\) is spent/);
		// The record says the same.
		const [record] = runRecords(world.agentDir);
		expect(record).toMatchObject({ state: "stopped", stopReason: "budget", budget: { stoppedBy: "tokens", used: { tokens: 6000 } } });
	});

	it("cost $0.05 (pi's usage cost from the models.json price): stopped the same way, cost ≤ limit + one response", async () => {
		const world = runWorld("budget-cost-", server.baseUrl, { files: { "agent/models.json": pricedModels(server.baseUrl) } });
		server.setScript(endless("task-cost"));
		const run = await cadre(world, ["run", "explore", "task-cost: look around", "--budget", "cost=0.05", "--json", "--verbose"]);
		expect(run.code, run.stderr).toBe(1);
		const result = JSON.parse(run.stdout);
		expect(result).toMatchObject({ status: "stopped", stopReason: "budget", text: "task-cost partial answer 3", budget: { stoppedBy: "cost", warned: true } });
		expect(result.budget.used.cost).toBeCloseTo(0.06, 6);
		expect(result.budget.used.cost).toBeLessThanOrEqual(0.05 + 0.02 + 1e-9);
		expect(mineOf("task-cost")).toHaveLength(3);
		expect(result.usage.cost).toBeCloseTo(0.06, 6);
	});

	it("time 1s: a timer at the deadline stops the child mid-request, stopped/budget (time)", async () => {
		const world = runWorld("budget-time-", server.baseUrl, { files: { "agent/models.json": pricedModels(server.baseUrl) } });
		let replied = 0;
		server.setScript((request) => {
			if (!JSON.stringify(request.messages).includes("task-time")) return { text: "not mine" };
			replied++;
			// The first answer comes at once; the second is held far past the deadline.
			return replied === 1 ? { text: "task-time first look", toolCalls: [{ name: "ls", arguments: { path: "." } }] } : { text: "too late", hold: new Promise((resolve) => setTimeout(resolve, 20_000)) };
		});
		const startedAt = Date.now();
		const run = await cadre(world, ["run", "explore", "task-time: look", "--budget", "time=1", "--json"]);
		const result = JSON.parse(run.stdout);
		expect(result).toMatchObject({ status: "stopped", stopReason: "budget", text: "task-time first look", budget: { stoppedBy: "time", reserved: { time: 1 } } });
		expect(result.durationMs).toBeLessThan(10_000);
		expect(Date.now() - startedAt).toBeLessThan(15_000);
	});

	it("an answer whose streamed usage passes the limit is aborted mid-stream (the provider reports usage while streaming)", async () => {
		const world = runWorld("budget-stream-", server.baseUrl, { files: { "agent/models.json": pricedModels(server.baseUrl) } });
		const mine: ChatRequest[] = [];
		server.setScript((request) => {
			if (!JSON.stringify(request.messages).includes("task-stream")) return { text: "not mine" };
			mine.push(request);
			if (mine.length === 1) return { text: "task-stream first look", toolCalls: [{ name: "ls", arguments: { path: "." } }], usage: { prompt: 1500, completion: 500 } };
			// 2,000 more reported with the first piece: 4,000 of 3,000 while it streams; the rest would come in 20 s.
			return { text: "second look, never finished", usage: { prompt: 1500, completion: 500 }, usageFirstThenHold: new Promise((resolve) => setTimeout(resolve, 20_000)) };
		});
		const run = await cadre(world, ["run", "explore", "task-stream: look", "--budget", "tokens=3000", "--json"]);
		const result = JSON.parse(run.stdout);
		expect(result).toMatchObject({ status: "stopped", stopReason: "budget", budget: { stoppedBy: "tokens" } });
		expect(mine).toHaveLength(2);
		// cadre went away before the answer ended.
		await expect(Promise.race([mine[1]?.closed.then(() => "closed"), new Promise((resolve) => setTimeout(() => resolve("open"), 1000))])).resolves.toBe("closed");
		expect(result.durationMs).toBeLessThan(10_000);
		expect(result.text).toMatch(/^(second look|task-stream first look)/);
	});

	it("the end line shows used/limit", async () => {
		const world = runWorld("budget-line-", server.baseUrl, { files: { "agent/models.json": pricedModels(server.baseUrl) } });
		server.setScript(endless("task-line"));
		const run = await cadre(world, ["run", "explore", "task-line: look", "--budget", "tokens=3000", "--verbose"]);
		expect(run.code).toBe(1);
		expect(run.stderr).toMatch(/cadre: explore-[a-z0-9]+ stopped · .* · budget 4000\/3000 tokens \(spent\)/);
		expect(run.stderr).toMatch(/stopped: its tokens budget \(3000 tokens\) is spent/);
	});

	it("budget.ceiling in user settings caps a request asking for more (the trace names it); an untrusted project cannot raise it", async () => {
		const world = runWorld("budget-ceiling-", server.baseUrl, {
			files: {
				"agent/models.json": pricedModels(server.baseUrl),
				"agent/subagents.json": JSON.stringify({ budget: { ceiling: { tokens: 3000 } } }),
				// pi-gated resources (.pi/settings.json) and no trust decision: the project is not trusted.
				"project/.pi/settings.json": "{}",
				"project/.pi/subagents.json": JSON.stringify({ budget: { ceiling: { tokens: 100000 } } }),
			},
		});
		server.setScript(endless("task-ceiling"));
		const run = await cadre(world, ["run", "explore", "task-ceiling: look", "--budget", "tokens=50000", "--json"]);
		const result = JSON.parse(run.stdout);
		expect(result).toMatchObject({ status: "stopped", stopReason: "budget", budget: { limit: { tokens: 3000 }, reserved: { tokens: 3000 } } });
		// 2,000 then 4,000 ≥ 3,000: two requests, never a third.
		expect(mineOf("task-ceiling")).toHaveLength(2);
		const [record] = runRecords(world.agentDir);
		const tokens = (record?.trace as { budget: { dimensions: { tokens: Record<string, unknown> } } }).budget.dimensions.tokens;
		expect(tokens).toMatchObject({ value: 3000, layer: "request", capped: { by: "ceiling", asked: 50000 } });
		expect(String((tokens.capped as { source: string }).source)).toContain(join(world.agentDir, "subagents.json"));
	});

	it("--batch FILE --budget tokens=5000: stops starting items once the batch budget is spent and reports the items not started", async () => {
		const world = runWorld("budget-batch-", server.baseUrl, { files: { "agent/models.json": pricedModels(server.baseUrl), "agent/subagents.json": JSON.stringify({ maxConcurrent: 1 }) } });
		server.setScript((request) => ({ text: `answer to ${request.lastText}`, usage: { prompt: 1500, completion: 500 } }));
		const file = join(world.root, "batch.jsonl");
		writeFileSync(file, Array.from({ length: 6 }, (_, i) => JSON.stringify({ type: "explore", prompt: `batch question ${i + 1}` })).join("\n"));
		const before = server.requests.length;
		const run = await cadre(world, ["run", "--batch", file, "--budget", "tokens=5000", "--json"]);
		const lines = run.stdout.trim().split("\n").map((line) => JSON.parse(line));
		const summary = lines.at(-1).summary;
		expect(summary).toMatchObject({ total: 6, completed: 2, "not-started": 3, notStarted: [4, 5, 6] });
		// The third item started with the 1,000 tokens left, made its one request and went over by it.
		expect(lines.find((line) => line.line === 3)).toMatchObject({ status: "stopped", stopReason: "budget", budget: { reserved: { tokens: 1000 } } });
		expect(lines.filter((line) => line.status === "not-started").map((line) => line.line)).toEqual([4, 5, 6]);
		expect(server.requests.length - before).toBe(3);
		const used = lines.filter((line) => line.budget).reduce((sum, line) => sum + line.budget.used.tokens, 0);
		expect(used).toBeLessThanOrEqual(5000 + 2000);
		const human = await cadre(world, ["run", "--batch", file, "--budget", "tokens=5000"]);
		expect(human.stdout).toMatch(/the batch budget was spent; not started: lines 4, 5, 6/);
		expect(human.stdout).toMatch(/line 1: completed explore-[a-z0-9]+ \(explore: batch question 1\) · .* · budget 2000\/5000 tokens\n/);
		expect(human.stdout).toMatch(/line 3: stopped .* · budget 2000\/1000 tokens \(spent\) — stopped: its tokens budget/);
		expect(human.stdout).toMatch(/line 4: not-started — not started: the batch budget is spent/);
	});
});

describe("cadre run: a tree held to its root's budget (issues 21 and 22, ADR 0179)", () => {
	it("a lead with cost $0.05 and 5 children asking $0.02 each: reservations clamp, then refuse; the tree spends within $0.05; unused comes back", async () => {
		const world = runWorld("budget-tree-", server.baseUrl, {
			files: {
				"agent/models.json": pricedModels(server.baseUrl),
				"agent/agents/lead.md": "---\ndescription: Lead\ntools: [read, subagent]\nsubagents: [explore]\n---\nLead.\n",
			},
		});
		const started = (text: string) => [...text.matchAll(/Started sub-agent (\S+)/g)].map((match) => match[1] as string);
		let leadIds: string[] = [];
		server.setScript((request) => {
			// Each explore answers once: 1,000 tokens, $0.01 — held so that no child ends before all five spawns.
			if (request.agent === "explore") return { text: "explored", usage: { prompt: 900, completion: 100 }, hold: new Promise((resolve) => setTimeout(resolve, 400)) };
			if (request.agent !== "lead") return { text: "wrong agent" };
			if (request.step === 0) {
				const spawn = (i: number) => ({ name: "subagent", arguments: { prompt: `part ${i}`, description: `part ${i}`, subagent_type: "explore", run_in_background: true, budget: { cost: 0.02 } } });
				return { toolCalls: [1, 2, 3, 4, 5].map(spawn), usage: { prompt: 100, completion: 0 } };
			}
			if (request.step === 1) {
				leadIds = started(JSON.stringify(request.messages));
				return { toolCalls: [{ name: "get_subagent_result", arguments: { agent_id: leadIds, wait: true } }], usage: { prompt: 100, completion: 0 } };
			}
			return { text: "lead: done", usage: { prompt: 100, completion: 0 } };
		});
		const run = await cadre(world, ["run", "lead", "lead the parts", "--budget", "cost=0.05", "--json"]);
		expect(run.code, run.stderr).toBe(0);
		const result = JSON.parse(run.stdout);
		const all = runRecords(world.agentDir) as { type: string; state: string; budget: { reserved: { cost: number }; used: { cost: number }; clamped: string[] } | null; parentId?: string | null }[];
		const children = all.filter((record) => record.type === "explore");
		// $0.001 spent by the lead first: $0.02, $0.02, then the $0.009 left (clamped); the rest refused.
		expect(children.map((record) => record.budget?.reserved.cost).sort()).toEqual([0.009, 0.02, 0.02]);
		expect(children.map((record) => record.budget?.clamped.join(",")).sort()).toEqual(["", "", "cost"]);
		expect(leadIds).toHaveLength(3);
		expect(JSON.stringify(server.requests.filter((request) => request.agent === "lead")[1]?.messages)).toMatch(/budget-exhausted/);
		// What the tree spent: the lead's three answers and its children's, within the root's budget
		// (the clamped child's one answer may pass its own $0.009 by what one answer costs).
		const treeCost = result.budget.used.cost + children.reduce((total, record) => total + (record.budget?.used.cost ?? 0), 0);
		// Each lead answer costs $0.001 (a lead waiting in its gate hears of its children's ends as they come, so it may ask more than three times).
		const leadRequests = server.requests.filter((request) => request.agent === "lead" && JSON.stringify(request.messages).includes("lead the parts")).length;
		expect(treeCost).toBeCloseTo(0.03 + 0.001 * leadRequests, 6);
		expect(treeCost).toBeLessThanOrEqual(0.05);
		// The lead's result: what its children reserved and what came back unused ($0.01 + $0.01; the third spent all).
		expect(result.budget.children.reserved.cost).toBeCloseTo(0.049, 9);
		expect(result.budget.children.returned.cost).toBeCloseTo(0.02, 9);
		expect(result.text).toBe("lead: done");
	});
});

describe("cadre's own project files need an explicit trust decision (ADR 0190)", () => {
	// A cloned repository whose only `.pi/` content is cadre's: pi has nothing it gates there, so it
	// would trust the project without asking anyone — cadre does not.
	const files = (extra: Record<string, string>) => ({
		"agent/models.json": pricedModels(server.baseUrl),
		"agent/subagents.json": JSON.stringify({ budget: { ceiling: { tokens: 3000 } } }),
		"project/.pi/subagents.json": JSON.stringify({ budget: { ceiling: { tokens: 100000 } } }),
		...extra,
	});

	it("a project with only cadre files cannot raise budget.ceiling when nobody trusted it", async () => {
		const world = runWorld("trust-cadre-only-", server.baseUrl, { files: files({}) });
		server.setScript(endless("task-trust-none"));
		const run = await cadre(world, ["run", "explore", "task-trust-none: look", "--budget", "tokens=50000", "--json"]);
		const result = JSON.parse(run.stdout);
		expect(result.budget).toMatchObject({ limit: { tokens: 3000 } });
		expect(mineOf("task-trust-none")).toHaveLength(2);
	});

	it("the user's explicit decision (settings defaultProjectTrust: always) trusts it", async () => {
		const world = runWorld("trust-cadre-always-", server.baseUrl, { files: files({ "agent/settings.json": JSON.stringify({ defaultProjectTrust: "always" }) }) });
		server.setScript(endless("task-trust-always"));
		const run = await cadre(world, ["run", "explore", "task-trust-always: look", "--budget", "tokens=5000", "--json"]);
		const result = JSON.parse(run.stdout);
		// The trusted project's ceiling (100000) is the one that applies: the request's 5000 stands.
		expect(result.budget).toMatchObject({ limit: { tokens: 5000 } });
	});
});

