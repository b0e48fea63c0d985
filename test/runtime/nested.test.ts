/**
 * Children that delegate (issue 21), through real pi sessions with the faux model, routed by the
 * `<active_agent name="…"/>` tag: a lead that fans out to three explore children and waits, with
 * one slot for the whole tree; the tree's usage in the one result the root sees; who gets the
 * delegation tools; refusals; no escalation; stopping a lead stops its subtree.
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { RunResult } from "../../src/runtime/result.ts";
import { createParent, fauxAssistantMessage, fauxToolCall, type Parent, toolResults, type Turn, until } from "./harness.ts";

let parent: Parent | null = null;
afterEach(() => {
	parent?.dispose();
	parent = null;
});

const LEAD = "---\ndescription: Leads a fan-out\ntools: [read, grep, subagent]\nsubagents: [explore]\n---\nLead the work: delegate, then summarise.\n";

/** The ids of the runs a session started in the background, from its tool results. */
function startedIds(turn: Turn): string[] {
	const ids: string[] = [];
	for (const message of turn.messages) {
		if (message.role !== "toolResult") continue;
		const text = (message.content as { type: string; text?: string }[]).map((p) => p.text ?? "").join("");
		for (const match of text.matchAll(/Started sub-agent (\S+)/g)) if (match[1]) ids.push(match[1]);
	}
	return ids;
}

/** The text of a session's first (user) message. */
const textOfFirst = (turn: Turn) => {
	const content = (turn.messages[0] as { content?: unknown } | undefined)?.content;
	return typeof content === "string" ? content : Array.isArray(content) ? content.map((part: { text?: string }) => part.text ?? "").join("") : "";
};
const names = (turn: Turn) => turn.tools.map((tool) => tool.name);
const spawnCall = (args: Record<string, unknown>) => fauxToolCall("subagent", { description: "a task", prompt: "do it", ...args });

/** A lead that starts three explore children in the background and waits for them. */
function fanOutLead(turn: Turn) {
	if (turn.step === 0) {
		const calls = [0, 1, 2].map((i) => spawnCall({ subagent_type: "explore", prompt: `look at part ${i}`, run_in_background: true }));
		return fauxAssistantMessage(calls, { stopReason: "toolUse" });
	}
	if (turn.step === 1) return fauxAssistantMessage([fauxToolCall("get_subagent_result", { agent_id: startedIds(turn), wait: true })], { stopReason: "toolUse" });
	return fauxAssistantMessage("lead: all three parts explored");
}

describe("children that delegate", () => {
	it("root → lead → 3 explore in the background at maxConcurrent 1: the tree completes, one result with the tree's usage", async () => {
		const seen: Turn[] = [];
		let running = 0;
		let peak = 0;
		/** Explore children running whenever the lead asked its model: it holds no slot while they run. */
		const besideLead: number[] = [];
		parent = await createParent({
			agentFiles: { "agents/lead.md": LEAD },
			subagentSettings: { maxConcurrent: 1 },
			script: (turn) => {
				seen.push(turn);
				if (turn.agent === "explore") return fauxAssistantMessage(`explored (${turn.messages[0] ? "ok" : "?"})`);
				if (turn.agent === "lead") {
					besideLead.push(running);
					return fanOutLead(turn);
				}
				if (turn.step === 0) return fauxAssistantMessage([spawnCall({ subagent_type: "lead", run_in_background: true })], { stopReason: "toolUse" });
				if (turn.step === 1) return fauxAssistantMessage([fauxToolCall("get_subagent_result", { agent_id: startedIds(turn), wait: true })], { stopReason: "toolUse" });
				return fauxAssistantMessage("root: done");
			},
		});
		const events = parent.events;
		const push = events.push.bind(events);
		events.push = (...items) => {
			for (const item of items) {
				if (item.payload.depth !== 2) continue;
				if (item.name === "cadre:started") peak = Math.max(peak, ++running);
				if (item.name === "cadre:completed" || item.name === "cadre:failed") running--;
			}
			return push(...items);
		};
		await parent.session.prompt("lead a fan-out");

		// Who got the delegation tools, and what the lead's `subagent` says it may spawn.
		const lead = seen.find((turn) => turn.agent === "lead");
		expect(lead && names(lead)).toEqual(expect.arrayContaining(["read", "grep", "subagent", "get_subagent_result", "steer_subagent"]));
		const description = lead?.tools.find((tool) => tool.name === "subagent")?.description ?? "";
		expect(description).toContain("- explore:");
		expect(description).not.toContain("- general-purpose:");
		const explores = seen.filter((turn) => turn.agent === "explore");
		expect(explores).toHaveLength(3);
		for (const turn of explores) expect(names(turn)).not.toContain("subagent");

		// One slot for the whole tree: one explore at a time, never beside a lead that works, and no deadlock.
		expect(peak).toBe(1);
		expect(besideLead).toEqual([0, 0, 0]);
		const completed = events.filter((e) => e.name === "cadre:completed");
		expect(completed).toHaveLength(4);
		const grandchildren = completed.filter((e) => e.payload.depth === 2);
		expect(grandchildren).toHaveLength(3);
		const leadId = completed.find((e) => e.payload.type === "lead")?.payload.id;
		for (const event of grandchildren) expect(event.payload.parentId).toBe(leadId);

		// The root's model sees one result of lead, its treeUsage the sum over the tree.
		const results = toolResults(parent.session, "get_subagent_result");
		expect(results).toHaveLength(1);
		const [result] = results[0]?.details as RunResult[];
		expect(result?.type).toBe("lead");
		expect(result?.descendants).toBe(3);
		expect(results[0]?.text).toContain("Tree: 3 descendants ran");
		const usages = completed.map((e) => e.payload.usage as RunResult["usage"]);
		const sum = usages.reduce((total, usage) => total + usage.input + usage.output + usage.cacheRead + usage.cacheWrite, 0);
		// The tree's usage is in the record (and pi's usage of a foreground result), not in the slim details (ADR 0193).
		const whole = parent.service().get(result?.id ?? "");
		const tree = whole?.treeUsage;
		expect(tree && tree.input + tree.output + tree.cacheRead + tree.cacheWrite).toBe(sum);
		expect(tree && tree.output).toBeGreaterThan(whole?.usage.output ?? 0);
		// The grandchildren's ends went to lead (it fetched them), not to the root session.
		expect(seen.filter((turn) => turn.agent === "parent").some((turn) => turn.lastText.includes("background sub-agent finished: explore-"))).toBe(false);
	});

	it("a lead's foreground child at maxConcurrent 1: the lead gives its slot back while it waits", async () => {
		parent = await createParent({
			agentFiles: { "agents/lead.md": LEAD },
			subagentSettings: { maxConcurrent: 1 },
			script: (turn) => {
				if (turn.agent === "explore") return fauxAssistantMessage("explored");
				if (turn.agent === "lead") {
					return turn.step === 0 ? fauxAssistantMessage([spawnCall({ subagent_type: "explore" })], { stopReason: "toolUse" }) : fauxAssistantMessage(`lead saw: ${turn.lastText.slice(0, 60)}`);
				}
				if (turn.step === 0) return fauxAssistantMessage([spawnCall({ subagent_type: "lead", run_in_background: true })], { stopReason: "toolUse" });
				if (turn.step === 1) return fauxAssistantMessage([fauxToolCall("get_subagent_result", { agent_id: startedIds(turn), wait: true })], { stopReason: "toolUse" });
				return fauxAssistantMessage("root: done");
			},
		});
		await parent.session.prompt("lead one");
		const [result] = toolResults(parent.session, "get_subagent_result")[0]?.details as RunResult[];
		expect(result?.status).toBe("completed");
		expect(result?.descendants).toBe(1);
		expect(parent.service().get(result?.id ?? "")?.text).toMatch(/^lead saw: explore-\S+ · completed · /);
	});

	it("refuses what a lead may not spawn (type-not-allowed) and a spawn past maxDepth (depth-exceeded)", async () => {
		let leadSaw = "";
		parent = await createParent({
			agentFiles: { "agents/lead.md": LEAD },
			script: (turn) => {
				if (turn.agent === "lead") {
					if (turn.step === 0) return fauxAssistantMessage([spawnCall({ subagent_type: "general-purpose" })], { stopReason: "toolUse" });
					if (turn.step === 1) {
						leadSaw = turn.lastText;
						// Settings are re-read at every spawn: nesting is turned off while the lead runs.
						writeFileSync(join(parent?.agentDir ?? "", "subagents.json"), JSON.stringify({ maxDepth: 1 }));
						return fauxAssistantMessage([spawnCall({ subagent_type: "explore" })], { stopReason: "toolUse" });
					}
					return fauxAssistantMessage(`lead saw: ${turn.lastText}`);
				}
				if (turn.agent !== "parent") return fauxAssistantMessage("should not run");
				return turn.step === 0 ? fauxAssistantMessage([spawnCall({ subagent_type: "lead" })], { stopReason: "toolUse" }) : fauxAssistantMessage("root: done");
			},
		});
		await parent.session.prompt("try");
		expect(leadSaw).toContain("Spawn refused (type-not-allowed)");
		expect(leadSaw).toContain('"lead" may not spawn "general-purpose": its subagents are explore');
		const [result] = toolResults(parent.session, "subagent");
		expect(result?.text).toContain("Spawn refused (depth-exceeded)");
		expect(parent.events.filter((e) => e.name === "cadre:created")).toHaveLength(1);
	});

	it("a run at maxDepth never gets the delegation tools, even when its definition names subagent", async () => {
		const seen: Turn[] = [];
		parent = await createParent({
			agentFiles: { "agents/chain.md": "---\ndescription: Chains\ntools: [read, subagent]\n---\nDelegate once.\n" },
			script: (turn) => {
				seen.push(turn);
				if (turn.agent === "chain") {
					const delegates = names(turn).includes("subagent");
					if (turn.step === 0 && delegates) return fauxAssistantMessage([spawnCall({ subagent_type: "chain" })], { stopReason: "toolUse" });
					return fauxAssistantMessage(delegates ? "chained" : "end of the chain");
				}
				return turn.step === 0 ? fauxAssistantMessage([spawnCall({ subagent_type: "chain" })], { stopReason: "toolUse" }) : fauxAssistantMessage("root: done");
			},
		});
		await parent.session.prompt("chain");
		const chains = seen.filter((turn) => turn.agent === "chain" && turn.step === 0);
		expect(chains).toHaveLength(2);
		expect(names(chains[0] as Turn)).toContain("subagent");
		expect(names(chains[1] as Turn)).not.toContain("subagent");
		expect(names(chains[1] as Turn)).toContain("read");
		const depths = parent.events.filter((e) => e.name === "cadre:completed").map((e) => e.payload.depth);
		expect(depths.sort()).toEqual([1, 2]);
	});

	it("a read-only lead cannot make a full-access grandchild: the grandchild is read-only, its tools narrowed", async () => {
		const seen: Turn[] = [];
		parent = await createParent({
			agentFiles: {
				"agents/lead.md": "---\ndescription: Read-only lead\ntools: [read, grep, subagent]\ncapability: read-only\nsubagents: [wide]\n---\nLead.\n",
				"agents/wide.md": "---\ndescription: Everything\ntools: [read, write, edit, bash]\ncapability: all\n---\nGo.\n",
			},
			script: (turn) => {
				seen.push(turn);
				if (turn.agent === "wide") return fauxAssistantMessage("wide done");
				if (turn.agent === "lead") return turn.step === 0 ? fauxAssistantMessage([spawnCall({ subagent_type: "wide" })], { stopReason: "toolUse" }) : fauxAssistantMessage("lead done");
				return turn.step === 0 ? fauxAssistantMessage([spawnCall({ subagent_type: "lead" })], { stopReason: "toolUse" }) : fauxAssistantMessage("root: done");
			},
		});
		await parent.session.prompt("go");
		const wide = seen.find((turn) => turn.agent === "wide");
		expect(wide && names(wide)).toEqual(["read"]);
		const created = parent.events.find((e) => e.name === "cadre:completed" && e.payload.type === "wide");
		expect(created?.payload.capabilityMode).toBe("read-only");
		expect(created?.payload.tools).toEqual(["read"]);
	});

	it("stopping lead through the service stops its running and queued children within 1 s, each recorded stopped", async () => {
		parent = await createParent({
			agentFiles: { "agents/lead.md": LEAD },
			subagentSettings: { maxConcurrent: 2 },
			script: (turn) => {
				if (turn.agent === "explore") {
					// Held until the run is stopped.
					return new Promise((resolve) => turn.signal?.addEventListener("abort", () => resolve(fauxAssistantMessage("", { stopReason: "aborted" })), { once: true }));
				}
				if (turn.agent === "lead") return fanOutLead(turn);
				return turn.step === 0 ? fauxAssistantMessage([spawnCall({ subagent_type: "lead", run_in_background: true })], { stopReason: "toolUse" }) : fauxAssistantMessage("root: started");
			},
		});
		await parent.session.prompt("start a lead");
		const service = parent.service();
		await until(() => service.list().filter((run) => run.type === "explore" && run.status === "running").length === 2, "two explore children running");
		expect(service.list().filter((run) => run.type === "explore" && run.status === "queued")).toHaveLength(1);
		const lead = service.list().find((run) => run.type === "lead");
		const began = Date.now();
		const stopped = await service.stop(lead?.id ?? "");
		expect(Date.now() - began).toBeLessThan(1000);
		expect(stopped?.status).toBe("stopped");
		const explores = service.list().filter((run) => run.type === "explore");
		expect(explores.map((run) => run.status)).toEqual(["stopped", "stopped", "stopped"]);
		for (const run of explores) expect(run.parentId).toBe(lead?.id);
	});
});

describe("a tree's edges", () => {
	it("Esc on the root aborts a foreground lead, its foreground child, and stops its background child", async () => {
		const held = (turn: Turn) =>
			new Promise<ReturnType<typeof fauxAssistantMessage>>((resolve) => turn.signal?.addEventListener("abort", () => resolve(fauxAssistantMessage("", { stopReason: "aborted" })), { once: true }));
		parent = await createParent({
			agentFiles: { "agents/lead.md": LEAD },
			script: (turn) => {
				if (turn.agent === "explore") return held(turn);
				if (turn.agent === "lead") {
					if (turn.step === 0) return fauxAssistantMessage([spawnCall({ subagent_type: "explore", run_in_background: true, description: "in the back" })], { stopReason: "toolUse" });
					if (turn.step === 1) return fauxAssistantMessage([spawnCall({ subagent_type: "explore", description: "in the front" })], { stopReason: "toolUse" });
					return fauxAssistantMessage("lead went on");
				}
				return turn.step === 0 ? fauxAssistantMessage([spawnCall({ subagent_type: "lead" })], { stopReason: "toolUse" }) : fauxAssistantMessage("root: done");
			},
		});
		const prompt = parent.session.prompt("lead in the foreground");
		const service = parent.service();
		await until(() => service.list().filter((run) => run.type === "explore" && run.status === "running").length === 2, "both explore children running");
		const began = Date.now();
		await parent.session.abort();
		await prompt;
		await until(() => service.list().every((run) => run.status !== "running" && run.status !== "queued"), "the tree ended");
		expect(Date.now() - began).toBeLessThan(1000);
		const state = (description: string) => service.list().find((run) => run.description === description)?.status;
		expect(service.list().find((run) => run.type === "lead")?.status).toBe("aborted");
		expect(state("in the front")).toBe("aborted");
		expect(state("in the back")).toBe("stopped");
	});

	it("a nested background run's end is steered into the lead that spawned it, not into the root session", async () => {
		let leadHeard = "";
		parent = await createParent({
			agentFiles: { "agents/lead.md": LEAD },
			script: async (turn) => {
				if (turn.agent === "explore") return fauxAssistantMessage("explored the corner");
				if (turn.agent === "lead") {
					if (turn.step === 0) return fauxAssistantMessage([spawnCall({ subagent_type: "explore", run_in_background: true })], { stopReason: "toolUse" });
					if (turn.step === 1) {
						// The lead works on while its child ends.
						await until(() => parent?.events.some((e) => e.name === "cadre:completed" && e.payload.type === "explore") ?? false, "explore ended");
						return fauxAssistantMessage([fauxToolCall("read", { path: "missing.txt" })], { stopReason: "toolUse" });
					}
					leadHeard = turn.messages.map((message) => (message.role === "user" ? JSON.stringify(message.content) : "")).join("\n");
					return fauxAssistantMessage("lead done");
				}
				return turn.step === 0 ? fauxAssistantMessage([spawnCall({ subagent_type: "lead" })], { stopReason: "toolUse" }) : fauxAssistantMessage("root: done");
			},
		});
		await parent.session.prompt("go");
		expect(leadHeard).toContain("1 background sub-agent finished: explore-");
		expect(leadHeard).toContain("explored the corner");
		const rootSaw = parent.requests.filter((turn) => turn.agent === "parent").map((turn) => JSON.stringify(turn.messages)).join("\n");
		expect(rootSaw).not.toContain("background sub-agent finished");
		expect(parent.session.messages.some((message) => (message as { customType?: string }).customType === "cadre-notification")).toBe(false);
	});

	it("a lead may resume only its own runs: resuming the root's run is refused (resume-refused)", async () => {
		let leadSaw = "";
		parent = await createParent({
			agentFiles: { "agents/lead.md": LEAD },
			script: (turn) => {
				if (turn.agent === "explore") return fauxAssistantMessage("explored");
				if (turn.agent === "lead") {
					const id = /resume (\S+)/.exec(textOfFirst(turn))?.[1] ?? "";
					if (turn.step === 0) return fauxAssistantMessage([spawnCall({ resume: id, prompt: "go on" })], { stopReason: "toolUse" });
					leadSaw = turn.lastText;
					return fauxAssistantMessage("lead done");
				}
				if (turn.step === 0) return fauxAssistantMessage([spawnCall({ subagent_type: "explore" })], { stopReason: "toolUse" });
				if (turn.step === 1) {
					const id = /^(explore-\S+) · /m.exec(turn.lastText)?.[1] ?? "";
					return fauxAssistantMessage([spawnCall({ subagent_type: "lead", prompt: `resume ${id}` })], { stopReason: "toolUse" });
				}
				return fauxAssistantMessage("root: done");
			},
		});
		await parent.session.prompt("go");
		expect(leadSaw).toContain("Spawn refused (resume-refused)");
		expect(leadSaw).toContain("a sub-agent resumes only its own runs");
		expect(parent.events.filter((e) => e.name === "cadre:created").map((e) => e.payload.type)).toEqual(["explore", "lead"]);
	});
});

describe("nested worktrees", () => {
	it("a worktree lead's child branches from the lead's current state (HEAD + uncommitted); its branch is in the same repo", async () => {
		for (const [key, value] of Object.entries({ GIT_AUTHOR_NAME: "t", GIT_AUTHOR_EMAIL: "t@t", GIT_COMMITTER_NAME: "t", GIT_COMMITTER_EMAIL: "t@t" })) process.env[key] = value;
		const repo = mkdtempSync(join(process.env.TMPDIR ?? "/tmp", "repo-"));
		const git = (...args: string[]) => execFileSync("git", args, { cwd: repo, encoding: "utf8" });
		git("init", "-q", "-b", "main");
		writeFileSync(join(repo, "a.txt"), "a\n");
		git("add", ".");
		git("commit", "-q", "-m", "init");
		const cwdOf = (turn: Turn) => /<cwd>\n(.*)\n<\/cwd>/.exec(turn.system)?.[1] ?? /Working directory: (\S+)/.exec(turn.system)?.[1] ?? "";
		const cwds: Record<string, string> = {};
		let workerSawLeadFile = false;
		parent = await createParent({
			cwd: repo,
			agentFiles: {
				"agents/lead.md": "---\ndescription: Worktree lead\ntools: [read, write, subagent]\nisolation: worktree\nsubagents: [worker]\n---\nLead.\n",
				"agents/worker.md": "---\ndescription: Worker\ntools: [read, write]\n---\nWork.\n",
			},
			script: (turn) => {
				if (turn.agent === "worker") {
					cwds.worker = cwdOf(turn);
					workerSawLeadFile = existsSync(join(cwds.worker, "lead.txt"));
					if (turn.step === 0) return fauxAssistantMessage([fauxToolCall("write", { path: "worker.txt", content: "from the worker" })], { stopReason: "toolUse" });
					return fauxAssistantMessage("worker wrote worker.txt");
				}
				if (turn.agent === "lead") {
					cwds.lead = cwdOf(turn);
					if (turn.step === 0) return fauxAssistantMessage([fauxToolCall("write", { path: "lead.txt", content: "uncommitted in the lead" })], { stopReason: "toolUse" });
					if (turn.step === 1) return fauxAssistantMessage([spawnCall({ subagent_type: "worker", prompt: "write worker.txt" })], { stopReason: "toolUse" });
					return fauxAssistantMessage(`lead saw: ${turn.lastText.slice(0, 40)}`);
				}
				return turn.step === 0 ? fauxAssistantMessage([spawnCall({ subagent_type: "lead" })], { stopReason: "toolUse" }) : fauxAssistantMessage("root: done");
			},
		});
		await parent.session.prompt("nest worktrees");
		const [lead] = toolResults(parent.session, "subagent").map((result) => result.details as RunResult & { isolation: { branch: string } | null });
		expect(lead?.status).toBe("completed");
		expect(cwds.lead).not.toBe(repo);
		expect(cwds.worker).not.toBe(cwds.lead);
		expect(workerSawLeadFile).toBe(true);
		const branches = git("branch", "--list", "cadre/*").split("\n").map((line) => line.replace(/^[*+ ]+/, "").trim()).filter(Boolean);
		const workerBranch = branches.find((branch) => branch.startsWith("cadre/worker-"));
		expect(branches).toContain(lead?.isolation?.branch);
		expect(workerBranch).toBeDefined();
		expect(git("show", `${workerBranch}:worker.txt`)).toBe("from the worker");
		// Branched from the lead's state: its uncommitted file came along.
		expect(git("show", `${workerBranch}:lead.txt`)).toBe("uncommitted in the lead");
		// The parent's own tree is untouched.
		expect(existsSync(join(repo, "lead.txt"))).toBe(false);
		expect(existsSync(join(repo, "worker.txt"))).toBe(false);
	});

	it("stopping a worktree lead stops its worktree children, each recorded stopped, their work committed on their branches", async () => {
		const wrote = new Set<string>();
		for (const [key, value] of Object.entries({ GIT_AUTHOR_NAME: "t", GIT_AUTHOR_EMAIL: "t@t", GIT_COMMITTER_NAME: "t", GIT_COMMITTER_EMAIL: "t@t" })) process.env[key] = value;
		const repo = mkdtempSync(join(process.env.TMPDIR ?? "/tmp", "repo-"));
		const git = (...args: string[]) => execFileSync("git", args, { cwd: repo, encoding: "utf8" });
		git("init", "-q", "-b", "main");
		writeFileSync(join(repo, "a.txt"), "a\n");
		git("add", ".");
		git("commit", "-q", "-m", "init");
		parent = await createParent({
			cwd: repo,
			agentFiles: {
				"agents/lead.md": "---\ndescription: Worktree lead\ntools: [read, write, subagent]\nisolation: worktree\nsubagents: [worker]\n---\nLead.\n",
				"agents/worker.md": "---\ndescription: Worker\ntools: [read, write]\n---\nWork.\n",
			},
			script: (turn) => {
				if (turn.agent === "worker") {
					const name = /part (\d)/.exec(textOfFirst(turn))?.[1] ?? "x";
					if (turn.step === 0) return fauxAssistantMessage([fauxToolCall("write", { path: `part-${name}.txt`, content: `part ${name}` })], { stopReason: "toolUse" });
					wrote.add(name);
					return new Promise((resolve) => turn.signal?.addEventListener("abort", () => resolve(fauxAssistantMessage("", { stopReason: "aborted" })), { once: true }));
				}
				if (turn.agent === "lead") {
					if (turn.step === 0) return fauxAssistantMessage([1, 2].map((i) => spawnCall({ subagent_type: "worker", prompt: `part ${i}`, description: `part ${i}`, run_in_background: true })), { stopReason: "toolUse" });
					if (turn.step === 1) return fauxAssistantMessage([fauxToolCall("get_subagent_result", { agent_id: startedIds(turn), wait: true })], { stopReason: "toolUse" });
					return fauxAssistantMessage("lead done");
				}
				return turn.step === 0 ? fauxAssistantMessage([spawnCall({ subagent_type: "lead", run_in_background: true })], { stopReason: "toolUse" }) : fauxAssistantMessage("root: started");
			},
		});
		await parent.session.prompt("start");
		const service = parent.service();
		await until(() => wrote.size === 2, "both workers wrote their part");
		const lead = service.list().find((run) => run.type === "lead");
		const began = Date.now();
		await service.stop(lead?.id ?? "");
		expect(Date.now() - began).toBeLessThan(1000);
		const workers = service.list().filter((run) => run.type === "worker");
		expect(workers.map((run) => run.status)).toEqual(["stopped", "stopped"]);
		for (const worker of workers) {
			const branch = (worker.isolation as { branch?: string } | null)?.branch ?? "";
			expect(branch).toBe(`cadre/${worker.id}`);
			const part = worker.description.replace(" ", "-");
			expect(git("show", `${branch}:${part}.txt`)).toBe(worker.description);
		}
	});
});
