/**
 * The tool result the parent keeps per child (issue 28, ADR 0188): its `details` hold what the
 * renderers' rows and the recovery paths read (id, state, counts, usage, model, transcript, text,
 * isolation, contract, verify, warnings…), without empty fields; the receipt, the requested-vs-used
 * rows, the tool list and the trace id stay in the run record, reachable by id through
 * the service — so a parent with many children does not carry them in every request's copy.
 */
import { afterEach, describe, expect, it } from "vitest";
import { createParent, fauxAssistantMessage, fauxToolCall, type Parent, toolResults } from "./harness.ts";
import { sandboxPlatform } from "../../src/sandbox/platform.ts";

/** The built-in explore's tools: bash too where it runs sandboxed (ADR 0185). */
const EXPLORE_TOOLS = ["read", "grep", "find", "ls", ...(sandboxPlatform().available ? ["bash"] : [])];

let parent: Parent | null = null;
afterEach(() => {
	parent?.dispose();
	parent = null;
});

const RECORD_ONLY = ["receipt", "requestedVsUsed", "tools", "thinking", "sandboxed", "sandboxMode", "traceId", "text", "transcript", "treeUsage", "model", "capabilityMode", "persona"];

describe("stored tool result details", () => {
	it("a foreground child's details leave the record-only fields and empty values out; the service has them by id", async () => {
		parent = await createParent({
			script: (turn) => {
				if (turn.agent === "explore") return fauxAssistantMessage("found it");
				if (turn.step === 0) return fauxAssistantMessage([fauxToolCall("subagent", { prompt: "look", description: "look", subagent_type: "explore" })], { stopReason: "toolUse" });
				return fauxAssistantMessage("ok");
			},
		});
		await parent.session.prompt("go");
		const [result] = toolResults(parent.session, "subagent");
		const details = result?.details as Record<string, unknown>;
		expect(details).toMatchObject({ status: "completed", type: "explore", turns: 1, toolUses: 0 });
		for (const key of RECORD_ONLY) expect(details, key).not.toHaveProperty(key);
		expect(Object.values(details)).not.toContain(null);
		// Default values are left out too (ADR 0193): false, no descendants, depth 1.
		expect(Object.values(details)).not.toContain(false);
		for (const key of ["warnings", "descendants", "depth", "limitReached", "truncated"]) expect(details, key).not.toHaveProperty(key);
		const full = parent.service().get(details.id as string);
		expect(full?.tools).toEqual(EXPLORE_TOOLS);
		expect(full).toMatchObject({ text: "found it", capabilityMode: "read-only", depth: 1, descendants: 0 });
		expect(full?.transcript).toEqual(expect.any(String));
		expect(full?.receipt).toMatchObject({ commandCount: 0, toolUses: {} });
		expect(full?.requestedVsUsed).toEqual([]);
		// The model reads what is not the default (ADR 0193); verbose has the rest.
		expect(result?.text).toBe(`${details.id} · completed · ${((details.durationMs as number) / 1000).toFixed(1)}s · 1 turn\n\nfound it`);
	});

	it("a background child's start answer and a fetched result are slim too; its notification keeps the whole result", async () => {
		let id = "";
		parent = await createParent({
			script: (turn) => {
				if (turn.agent === "explore") return fauxAssistantMessage("bg done");
				if (turn.lastText === "go" && turn.last?.role === "user")
					return fauxAssistantMessage([fauxToolCall("subagent", { prompt: "look", description: "look", subagent_type: "explore", run_in_background: true })], { stopReason: "toolUse" });
				if (turn.lastText === "fetch" && turn.last?.role === "user") return fauxAssistantMessage([fauxToolCall("get_subagent_result", { agent_id: id, wait: true })], { stopReason: "toolUse" });
				return fauxAssistantMessage("ok");
			},
		});
		await parent.session.prompt("go");
		id = (toolResults(parent.session, "subagent")[0]?.details as { id: string }).id;
		const notified = () => parent?.session.messages.filter((m) => m.role === "custom" && (m as { customType?: string }).customType === "cadre-notification") ?? [];
		for (let i = 0; i < 200 && (notified().length === 0 || !parent.session.isIdle); i++) await new Promise((resolve) => setTimeout(resolve, 10));
		await parent.session.prompt("fetch");
		const fetched = toolResults(parent.session, "get_subagent_result")[0]?.details as unknown[];
		const stored = [toolResults(parent.session, "subagent")[0]?.details, ...fetched] as Record<string, unknown>[];
		expect(stored).toHaveLength(2);
		expect(stored.map((details) => details.id)).toEqual([id, id]);
		for (const details of stored) for (const key of RECORD_ONLY) expect(details, key).not.toHaveProperty(key);
		// Notification details stay whole (NotificationDetails.runs is RunResult[], ADR 0188).
		const [note] = notified().flatMap((m) => (m as unknown as { details: { runs: Record<string, unknown>[] } }).details.runs);
		expect(note).toMatchObject({ id, tools: EXPLORE_TOOLS });
	});
});
