/**
 * `cadre run` end to end: the real `bin/cadre.js` against a real HTTP model endpoint — the
 * chat-completions stub on 127.0.0.1, configured in the world's `models.json` and made pi's default
 * model in its `settings.json` — so every request goes through pi's own provider code. Replies are
 * routed by the request (the child's `<active_agent>` tag, its step), never by arrival order.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ChatReply, type ChatRequest, type ChatServer, startChatServer } from "../support/chat-server.ts";
import { sandboxPlatform } from "../../src/sandbox/platform.ts";
import { cadre, gitOut, runRecords as records, runWorld, startCadre } from "../support/cadre-run.ts";

let server: ChatServer;
beforeAll(async () => {
	server = await startChatServer(() => ({ text: "unscripted" }));
});
afterAll(async () => {
	await server.close();
});

const writeNotes = (request: ChatRequest): ChatReply =>
	request.step === 0 ? { toolCalls: [{ name: "write", arguments: { path: "notes.txt", content: "from the child\n" } }] } : { text: "wrote notes.txt" };

describe("cadre run: one child through pi's SDK against a real HTTP endpoint", () => {
	it("runs in the foreground: the child's final text on stdout, pi's own model, prompt and credentials, a run record", async () => {
		const world = runWorld("run-fg-", server.baseUrl);
		server.setScript((request) => ({ text: request.agent === "explore" ? `found it in ${request.step === 0 ? "one look" : "two"}` : "wrong agent" }));
		const before = server.requests.length;
		const run = await cadre(world, ["run", "explore", "where is the parser?"]);
		expect(run.stderr).toBe("");
		expect(run).toMatchObject({ code: 0, stdout: "found it in one look\n" });
		const request = server.requests[before] as ChatRequest;
		expect(request).toMatchObject({ model: "model-a", agent: "explore", authorization: "Bearer stub-key", lastText: "where is the parser?" });
		// pi's own identity for a parent in this directory, then cadre's child sections; the child's tools.
		expect(request.system).toMatch(/^You are a coding assistant running inside pi/);
		expect(request.system).toContain(`Working directory: ${world.project}`);
		// explore gets bash when it runs sandboxed (ADR 0185)
		expect(request.tools.sort()).toEqual([...(sandboxPlatform().available ? ["bash"] : []), "find", "grep", "ls", "read"]);
		const [record] = records(world.agentDir);
		expect(record).toMatchObject({ type: "explore", state: "completed", text: "found it in one look", background: false });
		expect(existsSync(record?.transcript as string)).toBe(true);
	});

	it("cuts the child's identity from pi's own prompt for that directory: the user's SYSTEM.md, the project's AGENTS.md", async () => {
		const world = runWorld("run-identity-", server.baseUrl, {
			files: { "agent/SYSTEM.md": "You are Quill, the house assistant of this team.\n", "project/AGENTS.md": "Always answer in haiku.\n" },
		});
		server.setScript(() => ({ text: "ok" }));
		const before = server.requests.length;
		const run = await cadre(world, ["run", "explore", "look"]);
		expect(run.code, run.stderr).toBe(0);
		const system = (server.requests[before] as ChatRequest).system;
		expect(system).toMatch(/^You are Quill, the house assistant of this team\./);
		expect(system).toContain("Always answer in haiku.");
		expect(system).toContain('<active_agent name="explore"/>');
	});

	it("--json prints the whole result: requested vs used, warnings, usage, tool uses through a real tool call", async () => {
		const world = runWorld("run-json-", server.baseUrl, { models: ["model-a", "model-b"] });
		writeFileSync(join(world.project, "data.txt"), "forty-two\n");
		server.setScript((request) =>
			request.step === 0 ? { toolCalls: [{ name: "read", arguments: { path: "data.txt" } }], usage: { prompt: 100, completion: 10 } } : { text: `the file says ${request.lastText.trim()}`, usage: { prompt: 120, completion: 5 } },
		);
		const run = await cadre(world, ["run", "general-purpose", "read data.txt", "--model", "stub/model-b", "--capability", "read-only", "--thinking", "high", "--json", "--events"]);
		expect(run.code, run.stderr).toBe(0);
		const result = JSON.parse(run.stdout);
		// --events: the run's events as JSON lines on stderr, lifecycle and the child's steps.
		const events = run.stderr.trim().split("\n").filter((line) => line.startsWith("{")).map((line) => JSON.parse(line));
		expect(events.map((event) => event.event)).toEqual(expect.arrayContaining(["cadre:created", "cadre:started", "turn_start", "tool_start", "tool_end", "cadre:completed"]));
		expect(events.every((event) => event.id === result.id && typeof event.at === "number")).toBe(true);
		expect(result).toMatchObject({
			type: "general-purpose",
			status: "completed",
			text: "the file says forty-two",
			model: "stub/model-b",
			capabilityMode: "read-only",
			toolUses: 1,
			turns: 2,
			usage: { input: 220, output: 15 },
			truncated: false,
		});
		expect(result.requestedVsUsed).toEqual(
			expect.arrayContaining([
				{ field: "model", requested: "stub/model-b", used: "stub/model-b", note: null },
				{ field: "capabilityMode", requested: "read-only", used: "read-only", note: null },
				{ field: "reasoningEffort", requested: "high", used: "off", note: "clamped for the model" },
			]),
		);
		// The stub's models do not reason: the clamp is said, not silent.
		expect(result.warnings.join("\n")).toContain("thinking-clamped");
		expect(result.thinking).toBe("off");
		expect(result.tools).not.toContain("write");
	});

	it("runs a worktree child: it works in its own worktree and its commit is on cadre/<id>", async () => {
		const world = runWorld("run-wt-", server.baseUrl, { git: true });
		server.setScript(writeNotes);
		const run = await cadre(world, ["run", "general-purpose", "write the notes", "--isolation", "worktree", "--json"]);
		expect(run.code, run.stderr).toBe(0);
		const result = JSON.parse(run.stdout);
		expect(result.isolation).toMatchObject({ isolation: "worktree", branch: `cadre/${result.id}` });
		expect(gitOut(world.project, ["log", "--format=%s", "--name-only", `cadre/${result.id}`, "-1"])).toContain("notes.txt");
		expect(gitOut(world.project, ["show", `cadre/${result.id}:notes.txt`])).toBe("from the child\n");
		expect(existsSync(join(world.project, "notes.txt"))).toBe(false);
		expect(run.stderr).toContain(`cadre/${result.id}`);
	});

	it("a refused spawn exits 1 with the refusal and its hint, and runs nothing", async () => {
		const world = runWorld("run-refused-", server.baseUrl);
		const before = server.requests.length;
		const unknown = await cadre(world, ["run", "nope", "do it"]);
		expect(unknown.code).toBe(1);
		expect(unknown.stderr).toContain("Spawn refused (unknown-type)");
		const bad = await cadre(world, ["run", "general-purpose", "do it", "--thinking", "loud", "--json"]);
		expect(bad.code).toBe(1);
		expect(bad.stderr).toMatch(/Spawn refused \(bad-request\): .*thinking/);
		expect(bad.stderr).toMatch(/^hint: use one of: off, minimal, low, medium, high/m);
		expect(JSON.parse(bad.stdout)).toMatchObject({ status: "refused", refused: { code: "bad-request", hints: [expect.stringContaining("use one of")] } });
		expect(server.requests.length).toBe(before);
		expect(records(world.agentDir)).toEqual([]);
	});

	it("Ctrl-C mid-run stops the child like /subagents stop: exit 130, recorded stopped, worktree committed", async () => {
		const world = runWorld("run-sigint-", server.baseUrl, { git: true });
		let hung: ChatRequest | null = null;
		server.setScript((request) => {
			if (request.step === 0) return writeNotes(request);
			hung = request;
			return { text: "never sent", hold: new Promise(() => {}) };
		});
		const before = server.requests.length;
		const running = startCadre(world, ["run", "general-purpose", "write the notes", "--isolation", "worktree", "--json"]);
		await server.waitForRequests(before + 2);
		expect(hung).not.toBeNull();
		running.child.kill("SIGINT");
		const run = await running.done;
		expect(run.code, run.stderr).toBe(130);
		const result = JSON.parse(run.stdout);
		expect(result).toMatchObject({ status: "stopped", toolUses: 1 });
		const [record] = records(world.agentDir);
		expect(record).toMatchObject({ id: result.id, state: "stopped" });
		// Nothing lost: the child's write is committed on its branch.
		expect(gitOut(world.project, ["show", `cadre/${result.id}:notes.txt`])).toBe("from the child\n");
	});

	it("--resume ID continues a finished run from its stored config and transcript", async () => {
		const world = runWorld("run-resume-", server.baseUrl);
		server.setScript((request) => ({ text: request.step === 0 ? "first answer" : `again, after ${request.messages.length} messages` }));
		const first = JSON.parse((await cadre(world, ["run", "explore", "first question", "--json"])).stdout);
		const before = server.requests.length;
		const again = await cadre(world, ["run", "--resume", first.id, "second question", "--model", "stub/ignored", "--json"]);
		expect(again.code, again.stderr).toBe(0);
		const result = JSON.parse(again.stdout);
		expect(result).toMatchObject({ type: "explore", status: "completed", text: "again, after 3 messages" });
		expect(result.requestedVsUsed).toEqual(expect.arrayContaining([expect.objectContaining({ field: "model", note: expect.stringContaining("ignored") })]));
		const request = server.requests[before] as ChatRequest;
		expect(request.messages.map((m) => m.role)).toEqual(["user", "assistant", "user"]);
		expect(records(world.agentDir).find((r) => r.id === result.id)).toMatchObject({ resumeOf: first.id, state: "completed" });
		const missing = await cadre(world, ["run", "--resume", "explore-zzzzzz", "more"]);
		expect(missing.code).toBe(1);
		expect(missing.stderr).toContain("no run explore-zzzzzz is recorded in");
	});
});

describe("cadre run: the user's pi configuration and extensions, as pi loads them", () => {
	/** A user extension registering a provider at the stub and a tool; it notes each load in `log`. */
	const userExtension = (baseUrl: string, log: string) => `
import { appendFileSync } from "node:fs";
import { Type } from "typebox";
export default function (pi) {
	appendFileSync(${JSON.stringify(log)}, "user\\n");
	pi.registerProvider("extstub", {
		baseUrl: ${JSON.stringify(baseUrl)}, apiKey: "ext-key", api: "openai-completions",
		models: [{ id: "ext-model", name: "ext", reasoning: false, input: ["text"], cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 }, contextWindow: 128000, maxTokens: 4096 }],
	});
	pi.registerTool({ name: "ext_tool", label: "ext", description: "a user extension's tool", parameters: Type.Object({}),
		async execute() { return { content: [{ type: "text", text: "ok" }], details: undefined }; } });
}
`;
	const projectExtension = (log: string) => `
import { appendFileSync } from "node:fs";
export default function () { appendFileSync(${JSON.stringify(log)}, "project\\n"); }
`;

	it("runs on a provider a user extension registers (pi's default model there), with the extension reloaded into the child; an untrusted project's extension never loads", async () => {
		const world = runWorld("run-ext-", server.baseUrl, {
			files: {
				"agent/models.json": JSON.stringify({ providers: {} }),
				"agent/settings.json": JSON.stringify({ defaultProvider: "extstub", defaultModel: "ext-model" }),
			},
		});
		const log = join(world.root, "loads.log");
		writeFileSync(log, "");
		mkdirSync(join(world.agentDir, "extensions"));
		writeFileSync(join(world.agentDir, "extensions", "user-ext.ts"), userExtension(server.baseUrl, log));
		mkdirSync(join(world.project, ".pi", "extensions"), { recursive: true });
		writeFileSync(join(world.project, ".pi", "extensions", "project-ext.ts"), projectExtension(log));
		server.setScript((request) => ({ text: `${request.agent} on ${request.model}` }));
		const before = server.requests.length;
		const run = await cadre(world, ["run", "general-purpose", "hello", "--json"]);
		expect(run.code, run.stderr).toBe(0);
		expect(JSON.parse(run.stdout)).toMatchObject({ status: "completed", model: "extstub/ext-model", text: "general-purpose on ext-model" });
		const request = server.requests[before] as ChatRequest;
		expect(request.authorization).toBe("Bearer ext-key");
		// The parent's active tools include the extension's; the child has it (its extension reloaded).
		expect(request.tools).toContain("ext_tool");
		// Loaded for the parent and again for the child; the untrusted project's extension: never, and said so.
		expect(readFileSync(log, "utf8")).toBe("user\nuser\n");
		expect(run.stderr).toContain("this project is not trusted: its .pi/ settings, extensions, skills and prompts are not loaded");

		writeFileSync(log, "");
		const trusted = await cadre(world, ["run", "general-purpose", "hello", "--trust-project"]);
		expect(trusted).toMatchObject({ code: 0, stderr: "" });
		expect(readFileSync(log, "utf8").split("\n").filter(Boolean).sort()).toEqual(["project", "project", "user", "user"]);
	});
});

describe("cadre run --batch", () => {
	it("runs 20 requests through the limiter (maxConcurrent 3): never more than 3 at the server, 20 results and a summary", async () => {
		const world = runWorld("run-batch-", server.baseUrl, { files: { "agent/subagents.json": JSON.stringify({ maxConcurrent: 3 }) } });
		const total = 20;
		// A reply is held until 3 are in flight (or every run still to answer is): the limit is reached
		// every time, and a limit below 3 would never release (the test times out).
		let answered = 0;
		let pending: (() => void)[] = [];
		server.setScript((request) => {
			const reply = new Promise<void>((resolve) => pending.push(resolve));
			if (pending.length >= Math.min(3, total - answered)) {
				answered += pending.length;
				for (const release of pending) release();
				pending = [];
			}
			return { text: `answer to ${request.lastText}`, hold: reply };
		});
		const file = join(world.root, "batch.jsonl");
		writeFileSync(file, Array.from({ length: total }, (_, i) => JSON.stringify({ type: "explore", prompt: `question ${i + 1}` })).join("\n"));
		const maxBefore = server.maxInFlight();
		expect(maxBefore).toBeLessThanOrEqual(3);
		const run = await cadre(world, ["run", "--batch", file, "--json"]);
		expect(run.code, run.stderr).toBe(0);
		const lines = run.stdout.trim().split("\n").map((line) => JSON.parse(line));
		const results = lines.slice(0, -1);
		expect(results).toHaveLength(total);
		expect(results.every((result) => result.status === "completed")).toBe(true);
		expect(new Set(results.map((result) => result.text))).toEqual(new Set(Array.from({ length: total }, (_, i) => `answer to question ${i + 1}`)));
		expect(new Set(results.map((result) => result.line))).toEqual(new Set(Array.from({ length: total }, (_, i) => i + 1)));
		expect(lines.at(-1)).toMatchObject({ summary: { total, completed: total, failed: 0, refused: 0 } });
		expect(server.maxInFlight()).toBe(3);
		// The runs' own records say the same: at no moment were more than 3 of them running.
		const stored = records(world.agentDir);
		const moments = stored.flatMap((record) => [
			{ at: record.startedAt as number, step: 1 },
			{ at: record.endedAt as number, step: -1 },
		]);
		moments.sort((a, b) => a.at - b.at || a.step - b.step);
		let running = 0;
		let most = 0;
		for (const moment of moments) most = Math.max(most, (running += moment.step));
		expect(stored).toHaveLength(total);
		expect(most).toBeLessThanOrEqual(3);
		expect(stored.every((record) => record.background === true && record.state === "completed")).toBe(true);
	});

	it("a failing item never stops the others: refused and invalid lines are results of their own, exit 1", async () => {
		const world = runWorld("run-batch-mixed-", server.baseUrl);
		server.setScript((request) => ({ text: `ok: ${request.lastText}` }));
		const file = join(world.root, "batch.jsonl");
		writeFileSync(file, [JSON.stringify({ type: "explore", prompt: "one" }), JSON.stringify({ type: "nope", prompt: "two" }), "{not json", "", JSON.stringify({ type: "plan", prompt: "four" })].join("\n"));
		const run = await cadre(world, ["run", "--batch", file]);
		expect(run.code).toBe(1);
		const all = run.stdout.trim().split("\n");
		// Each completed item's answer follows its status line, indented (issue 19).
		for (const [n, answer] of [["1", "ok: one"], ["5", "ok: four"]]) {
			const at = all.findIndex((line) => line.includes(`line ${n}: completed`));
			expect(all[at + 1], run.stdout).toBe(`  ${answer}`);
		}
		const out = all.filter((line) => !line.startsWith("  "));
		expect(out).toHaveLength(5);
		expect(out.filter((line) => /line [15]: completed/.test(line))).toHaveLength(2);
		// Each run's line: its id, type and description, then its totals.
		expect(out.find((line) => line.includes("line 1:"))).toMatch(/^\[\d\/4\] line 1: completed explore-\w+ \(explore: one\) · 1 turn · 0 tool uses · [\d.k]+ tokens · \d+\.\ds$/);
		expect(out.find((line) => line.includes("line 2:"))).toMatch(/refused .*unknown-type/);
		expect(out.find((line) => line.includes("line 3:"))).toMatch(/invalid .*not valid JSON/);
		expect(out.at(-1)).toMatch(/^cadre: 4 runs: 2 completed, 1 refused, 1 invalid/);
	});

	it("--out DIR writes one file per item (the answer, or why there is none) and says where", async () => {
		const world = runWorld("run-batch-out-", server.baseUrl);
		server.setScript((request) => ({ text: `ok: ${request.lastText}` }));
		const file = join(world.root, "batch.jsonl");
		writeFileSync(file, [JSON.stringify({ type: "explore", prompt: "one" }), JSON.stringify({ type: "nope", prompt: "two" })].join("\n"));
		const dir = join(world.root, "answers");
		const run = await cadre(world, ["run", "--batch", file, "--out", dir]);
		expect(run.code).toBe(1);
		expect(readFileSync(join(dir, "line-1.md"), "utf8")).toBe("ok: one\n");
		expect(readFileSync(join(dir, "line-2.md"), "utf8")).toMatch(/^refused: .*unknown-type/);
		expect(run.stdout).toContain(`→ ${join(dir, "line-1.md")}`);
		expect(run.stdout).not.toContain("  ok: one");
	});
});

describe("cadre run: a child that delegates (issue 21)", () => {
	it("nests the same way: the lead gets the delegation tools and spawns explore; records carry parentId and depth", async () => {
		const world = runWorld("run-nested-", server.baseUrl, {
			files: { "agent/agents/lead.md": "---\ndescription: Lead\ntools: [read, subagent]\nsubagents: [explore]\n---\nLead.\n" },
		});
		const leadTools: string[][] = [];
		server.setScript((request) => {
			if (request.agent === "explore") return { text: "explored the parser" };
			if (request.agent !== "lead") return { text: "wrong agent" };
			leadTools.push([...request.tools].sort());
			return request.step === 0
				? { toolCalls: [{ name: "subagent", arguments: { prompt: "find the parser", description: "find it", subagent_type: "explore" } }] }
				: { text: `lead done: ${request.lastText.includes("explored the parser") ? "saw it" : "missed it"}` };
		});
		const run = await cadre(world, ["run", "lead", "lead the search"]);
		expect(run.code, run.stderr).toBe(0);
		expect(run.stdout).toBe("lead done: saw it\n");
		expect(leadTools[0]).toEqual(["get_subagent_result", "read", "steer_subagent", "subagent"]);
		const all = records(world.agentDir);
		const lead = all.find((record) => record.type === "lead");
		const explore = all.find((record) => record.type === "explore");
		expect(lead).toMatchObject({ state: "completed", depth: 1, parentId: null, descendants: 1 });
		expect(explore).toMatchObject({ state: "completed", depth: 2, parentId: lead?.id, rootId: lead?.id });
	});
});
