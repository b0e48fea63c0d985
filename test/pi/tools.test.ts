/**
 * The parent-facing surface inside a real pi session: the `subagent` description lists types and
 * personas, `get_subagent_result` reports progress on a timed-out wait without stopping the child,
 * `steer_subagent` reaches a running child, background usage is recorded as a session entry,
 * lifecycle payloads are copies, and `/subagents` lists, explains and shows transcripts.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { captureStdout, createParent, fauxAssistantMessage, fauxToolCall, type Parent, fullResult, toolResults, until } from "../runtime/harness.ts";
import { sandboxPlatform } from "../../src/sandbox/platform.ts";

let parent: Parent | null = null;
afterEach(() => {
	parent?.dispose();
	parent = null;
});

describe("the parent-facing tools", () => {
	it("describes enabled types and personas compactly", async () => {
		let description = "";
		parent = await createParent({
			agentFiles: {
				"personas/reviewer.md": "---\ndescription: Careful reviewer\ninputs:\n  - name: diff\n    io_type: file\noutputs:\n  - name: report\n    io_type: text\n---\nReview.\n",
				"agents/scout.md": "---\ndescription: Scouts the code\ntools: [read, grep]\nmodel: faux/child-model\n---\nScout.\n",
			},
			extensionFactories: [
				(pi) => {
					pi.on("before_agent_start", () => {
						description = pi.getAllTools().find((tool) => tool.name === "subagent")?.description ?? "";
					});
				},
			],
			script: () => fauxAssistantMessage("ok"),
		});
		await parent.session.prompt("hi");
		expect(description).toContain("- explore:");
		expect(description).toContain("- general-purpose:");
		// Unset tools mean the parent's active tools (spec 04), not every tool there is.
		expect(description).toMatch(/- general-purpose: [^\n]*\(parent's tools\)/);
		expect(description).toContain("- scout: Scouts the code (read, grep; model faux/child-model)");
		expect(description).toContain("- reviewer: Careful reviewer (expects diff: file; produces report: text)");
	});

	it("the description shows the model and capability the files give a type, in resolution order (role > pin > definition)", async () => {
		let description = "";
		parent = await createParent({
			agentFiles: {
				"agents/scout.md": "---\ndescription: Scouts\ntools: [read, grep]\nmodel: faux/child-model\n---\nScout.\n",
				"agents/fixer.md": "---\ndescription: Fixes\ntools: [read, edit]\nmodel: faux/child-model\n---\nFix.\n",
				"roles/fixer.md": "---\ncapability: read-only\nmodel: faux/role-model\n---\nBe careful.\n",
			},
			subagentSettings: { models: { scout: "faux/pinned-model" } },
			extensionFactories: [
				(pi) => {
					pi.on("before_agent_start", () => {
						description = pi.getAllTools().find((tool) => tool.name === "subagent")?.description ?? "";
					});
				},
			],
			script: () => fauxAssistantMessage("ok"),
		});
		await parent.session.prompt("hi");
		expect(description).toContain("- scout: Scouts (read, grep; model faux/pinned-model)");
		expect(description).toContain("- fixer: Fixes (read, edit; read-only; model faux/role-model)");
	});

	it("re-reads the definitions at a spawn and refreshes the description within the same prompt", async () => {
		const descriptions: string[] = [];
		parent = await createParent({
			extensionFactories: [
				(pi) => {
					pi.on("turn_start", () => {
						descriptions.push(pi.getAllTools().find((tool) => tool.name === "subagent")?.description ?? "");
					});
				},
			],
			script: (turn) => {
				if (turn.agent !== "parent") return fauxAssistantMessage("done");
				if (turn.step === 0) {
					// The operator adds a definition while the parent is working.
					mkdirSync(join(parent?.agentDir ?? "", "agents"), { recursive: true });
					writeFileSync(join(parent?.agentDir ?? "", "agents", "latecomer.md"), "---\ndescription: Arrived mid-prompt\n---\nLate.\n");
					return fauxAssistantMessage([fauxToolCall("subagent", { prompt: "p", description: "first spawn" })], { stopReason: "toolUse" });
				}
				return fauxAssistantMessage("ok");
			},
		});
		await parent.session.prompt("go");
		expect(descriptions).toHaveLength(2);
		expect(descriptions[0]).not.toContain("latecomer");
		expect(descriptions[1]).toContain("- latecomer: Arrived mid-prompt");
	});

	it("a timed-out wait reports progress and never stops the child; steer reaches it", async () => {
		let steered = false;
		parent = await createParent({
			script: (turn) => {
				if (turn.agent === "general-purpose") {
					if (turn.messages.some((m) => JSON.stringify(m).includes("wrap up now"))) {
						steered = true;
						return fauxAssistantMessage("wrapped up");
					}
					return fauxAssistantMessage([fauxToolCall("bash", { command: "sleep 0.3" })], { stopReason: "toolUse" });
				}
				if (turn.last?.role === "toolResult") return fauxAssistantMessage("ok");
				if (turn.lastText === "start") return fauxAssistantMessage([fauxToolCall("subagent", { prompt: "work", description: "long work", run_in_background: true })], { stopReason: "toolUse" });
				const id = String(parent?.events.find((e) => e.name === "cadre:created")?.payload.id);
				if (turn.lastText === "peek") return fauxAssistantMessage([fauxToolCall("get_subagent_result", { agent_id: id, wait: true, timeout: 0.05 })], { stopReason: "toolUse" });
				return fauxAssistantMessage([fauxToolCall("steer_subagent", { agent_id: id, message: "wrap up now" })], { stopReason: "toolUse" });
			},
		});
		await parent.session.prompt("start");
		await until(() => parent?.requests.some((t) => t.agent === "general-purpose") ?? false, "the child");
		await parent.session.prompt("peek");
		const [peek] = toolResults(parent.session, "get_subagent_result");
		expect(peek?.text).toMatch(/is still running: .*turns?, .*tool uses?, last event .*s ago/);
		expect(parent.events.filter((e) => e.name === "cadre:completed" || e.name === "cadre:failed")).toHaveLength(0);
		await parent.session.prompt("steer");
		expect(parent.events.some((e) => e.name === "cadre:steered" && e.payload.message === "wrap up now")).toBe(true);
		await until(() => parent?.events.some((e) => e.name === "cadre:completed") ?? false, "the steered child");
		expect(steered).toBe(true);
		const usage = parent.session.sessionManager.getEntries().filter((e) => e.type === "custom" && (e as { customType?: string }).customType === "cadre-usage");
		expect(usage).toHaveLength(1);
	});

	it("timeout: 0 answers at once with progress instead of waiting for the end", async () => {
		parent = await createParent({
			script: (turn) => {
				if (turn.agent === "general-purpose") {
					if (turn.step === 0) return fauxAssistantMessage([fauxToolCall("bash", { command: "sleep 2" })], { stopReason: "toolUse" });
					return fauxAssistantMessage("slept");
				}
				if (turn.last?.role === "toolResult") return fauxAssistantMessage("ok");
				if (turn.lastText === "start") return fauxAssistantMessage([fauxToolCall("subagent", { prompt: "work", description: "long work", run_in_background: true })], { stopReason: "toolUse" });
				const id = String(parent?.events.find((e) => e.name === "cadre:created")?.payload.id);
				return fauxAssistantMessage([fauxToolCall("get_subagent_result", { agent_id: id, wait: true, timeout: 0 })], { stopReason: "toolUse" });
			},
		});
		await parent.session.prompt("start");
		await until(() => parent?.service().list()[0]?.toolUses === 1, "the child's bash call");
		await parent.session.prompt("poll");
		const [poll] = toolResults(parent.session, "get_subagent_result");
		expect(poll?.text).toMatch(/is still running/);
		await parent.service().stop(String(parent.service().list()[0]?.id));
	});

	it("lifecycle payloads are copies, not live records", async () => {
		parent = await createParent({
			script: (turn) => {
				if (turn.agent === "explore") return fauxAssistantMessage("seen");
				return turn.step === 0
					? fauxAssistantMessage([fauxToolCall("subagent", { prompt: "x", description: "copy check", subagent_type: "explore" })], { stopReason: "toolUse" })
					: fauxAssistantMessage("ok");
			},
		});
		await parent.session.prompt("go");
		const created = parent.events.find((e) => e.name === "cadre:created");
		expect(created?.payload.status).toBe("queued");
		(created?.payload.tools as string[]).push("write");
		// explore gets bash when it runs sandboxed (ADR 0185)
		expect(parent.service().list()[0]?.tools).toEqual(["read", "grep", "find", "ls", ...(sandboxPlatform().available ? ["bash"] : [])]);
	});

	it("/subagents lists runs, explains a type and shows a transcript", async () => {
		parent = await createParent({
			script: (turn) => {
				if (turn.agent === "explore") return fauxAssistantMessage("seen");
				return turn.step === 0
					? fauxAssistantMessage([fauxToolCall("subagent", { prompt: "x", description: "list me", subagent_type: "explore" })], { stopReason: "toolUse" })
					: fauxAssistantMessage("ok");
			},
		});
		await parent.session.prompt("go");
		const id = parent.service().list()[0]?.id ?? "";
		const out = captureStdout();
		try {
			await parent.session.prompt("/subagents");
			await parent.session.prompt("/subagents explain explore");
			await parent.session.prompt(`/subagents transcript ${id}`);
		} finally {
			out.restore();
		}
		const text = out.text();
		expect(text).toContain(`${id}  completed`);
		expect(text).toContain('"list me"');
		expect(text).toMatch(/capabilityMode +read-only +definition/);
		expect(text).toMatch(/tools +read, grep, find, ls/);
		// the sandbox the child would run in, as the spawn sees it (issue 27)
		if (sandboxPlatform().available) {
			expect(text).toMatch(/tools +read, grep, find, ls, bash \(sandboxed\)/);
			expect(text).toContain("sandbox: sandboxed");
			expect(text).toContain("writes: none (read-only)");
		}
		expect(text).toMatch(new RegExp(`${id} \\(completed, 1 turn, 0 tool uses\\): /.*\\.jsonl`));
	});

	it("never gives a child the spawn tools, even with tools: all; inherit_context passes the conversation", async () => {
		let childFirstMessage = "";
		parent = await createParent({
			agentFiles: { "agents/everything.md": "---\ndescription: Has every tool\ntools: all\n---\nDo it all.\n" },
			script: (turn) => {
				if (turn.agent === "everything") {
					childFirstMessage = JSON.stringify(turn.messages[0]);
					return fauxAssistantMessage("done");
				}
				return turn.step === 0
					? fauxAssistantMessage(
							[fauxToolCall("subagent", { prompt: "do it", description: "everything", subagent_type: "everything", inherit_context: true })],
							{ stopReason: "toolUse" },
						)
					: fauxAssistantMessage("ok");
			},
		});
		await parent.session.prompt("the secret word is pelican");
		const [result] = toolResults(parent.session, "subagent");
		const tools = fullResult(parent, result)?.tools;
		expect(tools).toContain("grep");
		for (const name of ["subagent", "get_subagent_result", "steer_subagent"]) expect(tools).not.toContain(name);
		expect(childFirstMessage).toContain("<parent_conversation>");
		expect(childFirstMessage).toContain("the secret word is pelican");
	});
});

describe("the subagent description names required inputs (issue 13)", () => {
	it("marks a required input, and leaves an optional one plain", async () => {
		const { layout } = await import("../files/fixture.ts");
		const { subagentDescription } = await import("../../src/hosts/pi/tools.ts");
		const loaded = layout({
			"project/.pi/personas/reviewer.md": "---\ndescription: Reviews\ninputs:\n  - name: target\n    io_type: file\n    required: true\n  - name: depth\n    io_type: json\n---\nReview.\n",
		}).load();
		expect(subagentDescription(loaded)).toContain("- reviewer: Reviews (expects target: file (required), depth: json)");
	});
});
