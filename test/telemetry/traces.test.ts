/**
 * One trace per tree (issue 26, ADR 0145): a real pi parent with cadre, two children, and an
 * OTLP/HTTP receiver on 127.0.0.1. The parent's turn is the root; each run is an `invoke_agent`
 * span under it, with `chat` and `execute_tool` spans under the run; message content only with
 * OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { startOtlpReceiver, type OtlpReceiver, type ReceivedSpan } from "../support/otlp-receiver.ts";
import { createParent, fauxAssistantMessage, fauxToolCall, type Parent, fullResult, toolResults } from "../runtime/harness.ts";

let parent: Parent | null = null;
let receiver: OtlpReceiver | null = null;
const saved = { ...process.env };

beforeEach(async () => {
	receiver = await startOtlpReceiver();
});
afterEach(async () => {
	parent?.dispose();
	parent = null;
	await receiver?.close();
	receiver = null;
	for (const key of ["OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT"]) {
		if (saved[key] === undefined) delete process.env[key];
		else process.env[key] = saved[key];
	}
});

/** A parent that spawns two explore children in one message; each lists a directory, then answers. */
async function twoChildren(subagentSettings?: Record<string, unknown>): Promise<Parent> {
	return createParent({
		subagentSettings,
		script: (turn) => {
			if (turn.agent === "explore") {
				if (turn.step === 0) return fauxAssistantMessage([fauxToolCall("ls", { path: "." })], { stopReason: "toolUse" });
				return fauxAssistantMessage("CHILD-ANSWER-TEXT");
			}
			if (turn.step === 0) {
				return fauxAssistantMessage(
					[
						fauxToolCall("subagent", { prompt: "SECRET-PROMPT-alpha", description: "alpha", subagent_type: "explore" }),
						fauxToolCall("subagent", { prompt: "SECRET-PROMPT-beta", description: "beta", subagent_type: "explore", capability: "read-only" }),
					],
					{ stopReason: "toolUse" },
				);
			}
			return fauxAssistantMessage("both done");
		},
	});
}

async function exported(p: Parent, count: (spans: ReceivedSpan[]) => boolean): Promise<ReceivedSpan[]> {
	await p.shutdown();
	const deadline = Date.now() + 10_000;
	while (!count(receiver?.spans ?? []) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
	return receiver?.spans ?? [];
}

const children = (spans: ReceivedSpan[], parentId: string) => spans.filter((span) => span.parentSpanId === parentId);

describe("OpenTelemetry traces", () => {
	it("exports one trace: session turn → invoke_agent → chat / execute_tool, with the GenAI attributes and no content", async () => {
		process.env.OTEL_EXPORTER_OTLP_ENDPOINT = receiver?.endpoint;
		parent = await twoChildren();
		await parent.session.prompt("spawn two");
		const spans = await exported(parent, (all) => all.filter((s) => s.name.startsWith("invoke_agent")).length >= 2 && all.some((s) => s.name === "session_turn"));
		expect(receiver?.contentTypes.every((type) => type.startsWith("application/json"))).toBe(true);
		expect(new Set(spans.map((span) => span.traceId)).size).toBe(1);
		const roots = spans.filter((span) => span.parentSpanId === null);
		expect(roots.map((span) => span.name)).toEqual(["session_turn"]);
		const turn = roots[0] as ReceivedSpan;
		expect(turn.attributes["gen_ai.conversation.id"]).toBe(parent.session.sessionManager.getSessionId());
		const agents = children(spans, turn.spanId);
		expect(agents.map((span) => span.name)).toEqual(["invoke_agent explore", "invoke_agent explore"]);
		for (const agent of agents) {
			expect(agent.kind).toBe(1); // INTERNAL (OTLP's SPAN_KIND_INTERNAL)
			expect(agent.attributes).toMatchObject({
				"gen_ai.operation.name": "invoke_agent",
				"gen_ai.agent.name": "explore",
				"gen_ai.provider.name": "faux",
				"gen_ai.request.model": expect.any(String),
				"cadre.depth": 1,
				"cadre.isolation": "none",
				"cadre.state": "completed",
			});
			expect(String(agent.attributes["gen_ai.agent.id"])).toMatch(/^explore-/);
			expect(agent.attributes["gen_ai.conversation.id"]).toEqual(expect.any(String));
			const below = children(spans, agent.spanId);
			const chats = below.filter((span) => span.name.startsWith("chat "));
			const tools = below.filter((span) => span.name.startsWith("execute_tool "));
			expect(chats).toHaveLength(2);
			expect(tools.map((span) => span.name)).toEqual(["execute_tool ls"]);
			expect(chats[0]?.kind).toBe(3); // CLIENT
			expect(chats[0]?.attributes).toMatchObject({
				"gen_ai.operation.name": "chat",
				"gen_ai.provider.name": "faux",
				"gen_ai.response.finish_reasons": ["tool_call"],
				"gen_ai.usage.input_tokens": expect.any(Number),
				"gen_ai.usage.output_tokens": expect.any(Number),
				"gen_ai.usage.cache_read.input_tokens": expect.any(Number),
				"gen_ai.usage.cache_creation.input_tokens": expect.any(Number),
			});
			expect(chats[1]?.attributes["gen_ai.response.finish_reasons"]).toEqual(["stop"]);
			expect(tools[0]?.attributes).toMatchObject({ "gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "ls", "gen_ai.tool.call.id": expect.any(String) });
		}
		expect(agents.map((span) => span.attributes["cadre.capability"])).toEqual(["read-only", "read-only"]);
		// No message content by default: no prompt, answer or tool argument anywhere.
		const text = JSON.stringify(spans);
		expect(text).not.toContain("SECRET-PROMPT");
		expect(text).not.toContain("CHILD-ANSWER-TEXT");
		expect(text).not.toContain("gen_ai.input.messages");
		expect(text).not.toContain("gen_ai.tool.call.arguments");
		// The trace id is in each run's result.
		const results = toolResults(parent.session, "subagent").map((result) => fullResult(parent, result) as { traceId: string | null });
		expect(results.map((result) => result.traceId)).toEqual([turn.traceId, turn.traceId]);
	});

	it("records message content only with OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true", async () => {
		process.env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT = `${receiver?.endpoint}/v1/traces`;
		process.env.OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT = "true";
		parent = await twoChildren();
		await parent.session.prompt("spawn two");
		const spans = await exported(parent, (all) => all.filter((s) => s.name.startsWith("invoke_agent")).length >= 2);
		const agents = spans.filter((span) => span.name === "invoke_agent explore");
		expect(agents.map((span) => String(span.attributes["gen_ai.input.messages"])).sort().join()).toMatch(/SECRET-PROMPT-alpha.*SECRET-PROMPT-beta/);
		expect(String(agents[0]?.attributes["gen_ai.output.messages"])).toContain("CHILD-ANSWER-TEXT");
		const tool = spans.find((span) => span.name === "execute_tool ls");
		expect(JSON.parse(String(tool?.attributes["gen_ai.tool.call.arguments"]))).toEqual({ path: "." });
	});

	it("takes the endpoint from settings telemetry.otlp", async () => {
		parent = await twoChildren({ telemetry: { otlp: receiver?.endpoint } });
		await parent.session.prompt("spawn two");
		const spans = await exported(parent, (all) => all.filter((s) => s.name.startsWith("invoke_agent")).length >= 2);
		expect(spans.filter((span) => span.name === "invoke_agent explore")).toHaveLength(2);
	});

	it("exports nothing and sets no trace id without an endpoint", async () => {
		parent = await twoChildren();
		await parent.session.prompt("spawn two");
		await parent.shutdown();
		await new Promise((r) => setTimeout(r, 200));
		expect(receiver?.spans).toEqual([]);
		const results = toolResults(parent.session, "subagent").map((result) => result.details as { traceId: string | null; status: string });
		expect(results.map((result) => [result.status, result.traceId ?? null])).toEqual([
			["completed", null],
			["completed", null],
		]);
	});

	it("puts a nested child's invoke_agent span under its spawning run's span", async () => {
		process.env.OTEL_EXPORTER_OTLP_ENDPOINT = receiver?.endpoint;
		parent = await createParent({
			agentFiles: { "agents/lead.md": "---\ndescription: Lead\ntools: [read, subagent]\nsubagents: [explore]\n---\nLead.\n" },
			script: (turn) => {
				if (turn.agent === "explore") return fauxAssistantMessage("explored");
				if (turn.agent === "lead") {
					return turn.step === 0
						? fauxAssistantMessage([fauxToolCall("subagent", { prompt: "look", description: "look", subagent_type: "explore" })], { stopReason: "toolUse" })
						: fauxAssistantMessage("led");
				}
				return turn.step === 0
					? fauxAssistantMessage([fauxToolCall("subagent", { prompt: "lead", description: "lead", subagent_type: "lead" })], { stopReason: "toolUse" })
					: fauxAssistantMessage("done");
			},
		});
		await parent.session.prompt("nest");
		const spans = await exported(parent, (all) => all.filter((s) => s.name.startsWith("invoke_agent")).length >= 2);
		const lead = spans.find((span) => span.name === "invoke_agent lead");
		const explore = spans.find((span) => span.name === "invoke_agent explore");
		expect(lead).toBeDefined();
		expect(explore?.parentSpanId).toBe(lead?.spanId);
		expect(explore?.traceId).toBe(lead?.traceId);
	});
});
