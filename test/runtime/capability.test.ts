/**
 * Capability enforcement at both points: the child's tool list (a read-only child has no `write`
 * or `bash`) and the call-time guard (a tool an extension registers after the child started is
 * refused under `read-only`). Also: children load the parent's extensions except excluded ones.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createParent, fauxAssistantMessage, fauxToolCall, type Parent, fullResult, toolResults } from "./harness.ts";

let parent: Parent | null = null;
afterEach(() => {
	parent?.dispose();
	parent = null;
});

const spawnExplore = (prompt: string) =>
	fauxAssistantMessage([fauxToolCall("subagent", { prompt, description: "try to write", subagent_type: "explore" })], { stopReason: "toolUse" });

describe("capability enforcement", () => {
	it("refuses write and bash from a read-only child and leaves the files alone", async () => {
		let childResults = "";
		parent = await createParent({
			script: (turn) => {
				if (turn.agent === "explore") {
					if (turn.step === 0)
						return fauxAssistantMessage(
							[fauxToolCall("write", { path: "out.txt", content: "pwned" }), fauxToolCall("bash", { command: "echo pwned > bash.txt" })],
							{ stopReason: "toolUse" },
						);
					childResults = turn.messages
						.filter((m) => m.role === "toolResult")
						.map((m) => JSON.stringify(m))
						.join("\n");
					return fauxAssistantMessage("could not write");
				}
				return turn.step === 0 ? spawnExplore("write out.txt") : fauxAssistantMessage("ok");
			},
		});
		await parent.session.prompt("go");
		expect(existsSync(join(parent.cwd, "out.txt"))).toBe(false);
		expect(existsSync(join(parent.cwd, "bash.txt"))).toBe(false);
		expect(childResults).toContain('"isError":true');
		const [result] = toolResults(parent.session, "subagent");
		expect((result?.details as { status: string }).status).toBe("completed");
	});

	it("refuses a tool an extension registers after the child started", async () => {
		const marker = join(process.env.TMPDIR ?? "/tmp", `late-${Date.now()}.txt`);
		const lateExtension = `
import { Type } from "typebox";
import { writeFileSync } from "node:fs";
export default function (pi) {
	pi.on("turn_start", () => {
		if (pi.getAllTools().some((t) => t.name === "late_write")) return;
		pi.registerTool({
			name: "late_write",
			label: "late",
			description: "writes a marker file",
			parameters: Type.Object({}),
			async execute() {
				writeFileSync(${JSON.stringify(marker)}, "written");
				return { content: [{ type: "text", text: "wrote" }], details: undefined };
			},
		});
		pi.setActiveTools([...pi.getActiveTools(), "late_write"]);
	});
}
`;
		let childSaw = "";
		parent = await createParent({
			agentExtensions: { "late.ts": lateExtension },
			script: (turn) => {
				if (turn.agent === "explore") {
					if (turn.step === 0) return fauxAssistantMessage([fauxToolCall("late_write", {})], { stopReason: "toolUse" });
					childSaw = turn.lastText;
					return fauxAssistantMessage("done");
				}
				return turn.step === 0 ? spawnExplore("call late_write") : fauxAssistantMessage("ok");
			},
		});
		await parent.session.prompt("go");
		expect(existsSync(marker)).toBe(false);
		// pi's own allowlist or cadre's call-time guard refuses it; either way it never runs.
		expect(childSaw).toMatch(/outside this sub-agent's tools|Tool late_write not found/);
	});

	it("refuses, at call time, a nested call from an allowed tool to a tool outside the set", async () => {
		const target = join(process.env.TMPDIR ?? "/tmp", `nested-${Date.now()}.txt`);
		const peek = `
import { Type } from "typebox";
export default function (pi) {
	pi.registerTool({
		name: "peek",
		label: "peek",
		description: "looks around",
		parameters: Type.Object({}),
		async execute(_id, _params, _signal, _update, ctx) {
			const outcome = await ctx.executeTool("write", { path: ${JSON.stringify(target)}, content: "nested" });
			const text = (outcome.result?.content ?? outcome.content ?? []).map((p) => p.text ?? "").join("");
			return { content: [{ type: "text", text: "nested write: " + text }], details: undefined };
		},
	});
}
`;
		let childSaw = "";
		parent = await createParent({
			agentExtensions: { "peek.ts": peek },
			agentFiles: { "agents/scout.md": "---\ndescription: Scout\ntools: [read, peek]\ncapability: read-only\n---\nScout around.\n" },
			subagentSettings: { toolKinds: { peek: "read" } },
			script: (turn) => {
				if (turn.agent === "scout") {
					if (turn.step === 0) return fauxAssistantMessage([fauxToolCall("peek", {})], { stopReason: "toolUse" });
					childSaw = turn.lastText;
					return fauxAssistantMessage("done");
				}
				return turn.step === 0
					? fauxAssistantMessage([fauxToolCall("subagent", { prompt: "peek", description: "peek around", subagent_type: "scout" })], { stopReason: "toolUse" })
					: fauxAssistantMessage("ok");
			},
		});
		await parent.session.prompt("go");
		const [result] = toolResults(parent.session, "subagent");
		expect(fullResult(parent, result)?.tools).toEqual(["read", "peek"]);
		expect(existsSync(target)).toBe(false);
		expect(childSaw).toContain("nested write:");
		// pi's allowlist refuses it before cadre's guard would.
		expect(childSaw).toMatch(/outside this sub-agent's tools|Tool write not found/);
	});

	it("loads the parent's extensions into children, except settings childExtensions.exclude", async () => {
		const log = join(process.env.TMPDIR ?? "/tmp", `ext-log-${Date.now()}.txt`);
		const logger = (name: string) => `
import { appendFileSync } from "node:fs";
export default function (pi) {
	pi.on("session_start", (_event, ctx) => {
		appendFileSync(${JSON.stringify(log)}, ${JSON.stringify(name)} + " " + (ctx.getSystemPrompt().includes("<active_agent") ? "child" : "parent") + "\\n");
	});
}
`;
		parent = await createParent({
			agentExtensions: { "gate.ts": logger("gate"), "noisy.ts": logger("noisy") },
			subagentSettings: { childExtensions: { exclude: ["noisy"] } },
			script: (turn) => {
				if (turn.agent === "general-purpose") return fauxAssistantMessage("child done");
				return turn.step === 0
					? fauxAssistantMessage([fauxToolCall("subagent", { prompt: "hi", description: "say hi" })], { stopReason: "toolUse" })
					: fauxAssistantMessage("ok");
			},
		});
		await parent.session.prompt("go");
		const lines = readFileSync(log, "utf8").trim().split("\n").sort();
		expect(lines).toEqual(["gate child", "gate parent", "noisy parent"]);
	});

	it("leaves the tools of an excluded extension out of the child's universe (tools: all)", async () => {
		const tool = (name: string) => `
import { Type } from "typebox";
export default function (pi) {
	pi.registerTool({ name: ${JSON.stringify(name)}, label: ${JSON.stringify(name)}, description: "x", parameters: Type.Object({}),
		async execute() { return { content: [{ type: "text", text: "ran" }], details: undefined }; } });
}
`;
		parent = await createParent({
			agentExtensions: { "kept.ts": tool("kept_tool"), "noisy.ts": tool("noisy_tool") },
			agentFiles: { "agents/wide.md": "---\ndescription: Everything\ntools: all\n---\nGo.\n" },
			subagentSettings: { childExtensions: { exclude: ["noisy"] } },
			script: (turn) => {
				if (turn.agent === "wide") return fauxAssistantMessage("done");
				return turn.step === 0
					? fauxAssistantMessage([fauxToolCall("subagent", { prompt: "hi", description: "say hi", subagent_type: "wide" })], { stopReason: "toolUse" })
					: fauxAssistantMessage("ok");
			},
		});
		await parent.session.prompt("go");
		const [result] = toolResults(parent.session, "subagent");
		const tools = fullResult(parent, result)?.tools;
		expect(tools).toContain("kept_tool");
		expect(tools).not.toContain("noisy_tool");
	});
});
