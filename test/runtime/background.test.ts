/**
 * Background runs through a real pi parent: the FIFO limiter (20 spawns, `maxConcurrent: 4`), the
 * completion notification (exactly once, suppressed after a fetch), stopping queued runs.
 */
import { afterEach, describe, expect, it } from "vitest";
import { createParent, fauxAssistantMessage, fauxToolCall, type Parent, toolResults, type Turn, until } from "./harness.ts";

let parent: Parent | null = null;
afterEach(() => {
	parent?.dispose();
	parent = null;
});

function idsFrom(turn: Turn): string[] {
	const ids: string[] = [];
	for (const message of turn.messages) {
		if (message.role !== "toolResult") continue;
		const text = (message.content as { type: string; text?: string }[]).map((p) => p.text ?? "").join("");
		const match = /Started sub-agent (\S+)/.exec(text);
		if (match?.[1]) ids.push(match[1]);
	}
	return ids;
}

describe("background runs", () => {
	it("runs 20 background children with maxConcurrent 4: all complete, never more than 4 at once", async () => {
		parent = await createParent({
			subagentSettings: { maxConcurrent: 4 },
			script: (turn) => {
				if (turn.agent === "explore") {
					if (turn.step === 0) return fauxAssistantMessage([fauxToolCall("ls", { path: "." })], { stopReason: "toolUse" });
					return fauxAssistantMessage(`explored: ${turn.messages[0] ? "ok" : "?"}`);
				}
				if (turn.step === 0) {
					const calls = Array.from({ length: 20 }, (_, i) =>
						fauxToolCall("subagent", { prompt: `task ${i}`, description: `task ${i}`, subagent_type: "explore", run_in_background: true }),
					);
					return fauxAssistantMessage(calls, { stopReason: "toolUse" });
				}
				if (turn.step === 1) {
					return fauxAssistantMessage([fauxToolCall("get_subagent_result", { agent_id: idsFrom(turn), wait: true })], { stopReason: "toolUse" });
				}
				return fauxAssistantMessage("all fetched");
			},
		});
		const events = parent.events;
		let running = 0;
		let peak = 0;
		const originalPush = events.push.bind(events);
		events.push = (...items) => {
			for (const item of items) {
				if (item.name === "cadre:started") peak = Math.max(peak, ++running);
				if (item.name === "cadre:completed" || item.name === "cadre:failed") running--;
			}
			return originalPush(...items);
		};
		await parent.session.prompt("spawn twenty");
		const completed = events.filter((e) => e.name === "cadre:completed");
		expect(completed).toHaveLength(20);
		expect(events.filter((e) => e.name === "cadre:failed")).toHaveLength(0);
		expect(peak).toBeGreaterThan(1);
		expect(peak).toBeLessThanOrEqual(4);
		const [fetched] = toolResults(parent.session, "get_subagent_result");
		expect(fetched?.text.match(/ · completed · /g)).toHaveLength(20);
		// Every result was fetched: no notification may follow.
		await new Promise((resolve) => setTimeout(resolve, 50));
		const notifications = parent.session.messages.filter((m) => m.role === "custom" && (m as { customType?: string }).customType === "cadre-notification");
		expect(notifications).toHaveLength(0);
	});

	it("delivers one completion notification, after the parent's turn", async () => {
		parent = await createParent({
			script: (turn) => {
				if (turn.agent === "explore") return fauxAssistantMessage("background finding: 42");
				if (turn.step === 0)
					return fauxAssistantMessage(
						[fauxToolCall("subagent", { prompt: "find it", description: "find the answer", subagent_type: "explore", run_in_background: true })],
						{ stopReason: "toolUse" },
					);
				if (turn.lastText.includes("Background sub-agent")) return fauxAssistantMessage("noted the notification");
				return fauxAssistantMessage("waiting for the child");
			},
		});
		await parent.session.prompt("go");
		await until(() => parent?.requests.some((t) => t.agent === "parent" && t.lastText.includes("Background sub-agent")) ?? false, "the notification turn");
		await parent.session.waitForIdle?.();
		await new Promise((resolve) => setTimeout(resolve, 50));
		const notifications = parent.session.messages.filter((m) => m.role === "custom" && (m as { customType?: string }).customType === "cadre-notification");
		expect(notifications).toHaveLength(1);
		const content = String((notifications[0] as { content: unknown }).content);
		expect(content).toContain("completed");
		expect(content).toContain("background finding: 42");
		expect(content).toContain("Transcript:");
	});

	it("stopping a queued run records it as stopped and emits the terminal event", async () => {
		parent = await createParent({
			subagentSettings: { maxConcurrent: 1 },
			script: (turn) => {
				if (turn.agent === "general-purpose") {
					if (turn.step === 0) return fauxAssistantMessage([fauxToolCall("bash", { command: "sleep 0.4" })], { stopReason: "toolUse" });
					return fauxAssistantMessage("slept");
				}
				if (turn.step === 0)
					return fauxAssistantMessage(
						[
							fauxToolCall("subagent", { prompt: "first", description: "first one", run_in_background: true }),
							fauxToolCall("subagent", { prompt: "second", description: "second one", run_in_background: true }),
						],
						{ stopReason: "toolUse" },
					);
				return fauxAssistantMessage("spawned");
			},
		});
		await parent.session.prompt("go");
		const created = parent.events.filter((e) => e.name === "cadre:created").map((e) => String(e.payload.id));
		expect(created).toHaveLength(2);
		const queued = created[1] ?? "";
		expect(parent.events.filter((e) => e.name === "cadre:started").map((e) => e.payload.id)).not.toContain(queued);
		await parent.session.prompt(`/subagents stop ${queued}`);
		const failed = parent.events.filter((e) => e.name === "cadre:failed" && e.payload.id === queued);
		expect(failed).toHaveLength(1);
		expect(failed[0]?.payload.status).toBe("stopped");
		await until(() => parent?.events.some((e) => e.name === "cadre:completed") ?? false, "the first run");
		expect(parent.events.filter((e) => e.name === "cadre:started").map((e) => e.payload.id)).not.toContain(queued);
	});

	it("a running run reports the tokens it has used so far (/subagents list, the service)", async () => {
		parent = await createParent({
			script: (turn) => {
				if (turn.agent === "general-purpose") {
					if (turn.step === 0) return fauxAssistantMessage([fauxToolCall("bash", { command: "sleep 20" })], { stopReason: "toolUse" });
					return fauxAssistantMessage("woke up");
				}
				if (turn.step === 0) return fauxAssistantMessage([fauxToolCall("subagent", { prompt: "sleep", description: "long sleeper", run_in_background: true })], { stopReason: "toolUse" });
				return fauxAssistantMessage("spawned");
			},
		});
		await parent.session.prompt("go");
		await until(() => parent?.service().list()[0]?.toolUses === 1, "the child's bash call");
		const [running] = parent.service().list();
		expect(running?.status).toBe("running");
		expect((running?.usage.input ?? 0) + (running?.usage.output ?? 0) + (running?.usage.cacheWrite ?? 0)).toBeGreaterThan(0);
		await parent.service().stop(String(running?.id));
	});

	it("a message steered to a queued run reaches the child before its first model request", async () => {
		const secondTurns: Turn[] = [];
		parent = await createParent({
			subagentSettings: { maxConcurrent: 1 },
			script: (turn) => {
				if (turn.agent === "general-purpose") {
					if (turn.system.length > 0 && JSON.stringify(turn.messages[0]).includes("second")) {
						secondTurns.push(turn);
						if (turn.step === 0) return fauxAssistantMessage([fauxToolCall("ls", { path: "." })], { stopReason: "toolUse" });
						return fauxAssistantMessage("second done");
					}
					if (turn.step === 0) return fauxAssistantMessage([fauxToolCall("bash", { command: "sleep 0.4" })], { stopReason: "toolUse" });
					return fauxAssistantMessage("first done");
				}
				if (turn.step === 0)
					return fauxAssistantMessage(
						[
							fauxToolCall("subagent", { prompt: "first", description: "first one", run_in_background: true }),
							fauxToolCall("subagent", { prompt: "second", description: "second one", run_in_background: true }),
						],
						{ stopReason: "toolUse" },
					);
				return fauxAssistantMessage("spawned");
			},
		});
		await parent.session.prompt("go");
		const queued = String(parent.events.filter((e) => e.name === "cadre:created")[1]?.payload.id);
		expect(parent.service().get(queued)?.status).toBe("queued");
		await parent.service().steer(queued, "ALSO CHECK THE README");
		await until(() => parent?.service().get(queued)?.status === "completed", "the queued run");
		expect(secondTurns.length).toBeGreaterThan(0);
		expect(JSON.stringify(secondTurns[0]?.messages)).toContain("ALSO CHECK THE README");
	});

	it("holds a notification while the parent is mid-turn and sends it after the turn", async () => {
		parent = await createParent({
			script: (turn) => {
				if (turn.agent === "explore") return fauxAssistantMessage("quick finding");
				if (turn.lastText.includes("Background sub-agent")) return fauxAssistantMessage("read the notification");
				if (turn.step === 0)
					return fauxAssistantMessage(
						[
							fauxToolCall("subagent", { prompt: "quick", description: "quick look", subagent_type: "explore", run_in_background: true }),
							fauxToolCall("bash", { command: "sleep 0.3" }),
						],
						{ stopReason: "toolUse" },
					);
				return fauxAssistantMessage("turn over");
			},
		});
		await parent.session.prompt("go");
		await until(() => parent?.requests.some((t) => t.lastText.includes("Background sub-agent")) ?? false, "the notification turn");
		await new Promise((resolve) => setTimeout(resolve, 50));
		// The child finished during the parent's bash call; the notification came only after "turn over".
		const completedAt = parent.events.findIndex((e) => e.name === "cadre:completed");
		expect(completedAt).toBeGreaterThan(-1);
		const sequence = parent.session.messages
			.map((m) => (m.role === "custom" ? "notification" : m.role === "assistant" ? JSON.stringify(m.content) : m.role))
			.filter((entry) => entry === "notification" || entry.includes("turn over") || entry.includes("read the notification"));
		expect(sequence).toHaveLength(3);
		expect(sequence[0]).toContain("turn over");
		expect(sequence[1]).toBe("notification");
		expect(sequence[2]).toContain("read the notification");
	});
});
