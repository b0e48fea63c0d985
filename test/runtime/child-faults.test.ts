/**
 * What goes wrong in a child without ending it is named in its result (ADR 0079), through real pi
 * sessions: an extension whose handler throws in the child, an extension that fails to load in
 * the child, and a message steered to a queued run that pi refuses when it is delivered (it names
 * a command of the child's extensions) — before, the first two were lost without a word and the
 * third was an unhandled rejection.
 */
import { afterEach, describe, expect, it } from "vitest";
import type { RunResult } from "../../src/runtime/result.ts";
import { createParent, fauxAssistantMessage, fauxToolCall, type Parent, toolResults, until } from "./harness.ts";

let parent: Parent | null = null;
afterEach(() => {
	parent?.dispose();
	parent = null;
	delete (globalThis as { __cadreLoads?: number }).__cadreLoads;
});

const spawnOne = (extra: Record<string, unknown> = {}) =>
	fauxAssistantMessage([fauxToolCall("subagent", { prompt: "look around", description: "look", ...extra })], { stopReason: "toolUse" });

/** A parent that spawns one foreground child on "go"; the child answers at once. */
async function oneChild(agentExtensions: Record<string, string>): Promise<RunResult> {
	parent = await createParent({
		agentExtensions,
		script: (turn) => {
			if (turn.agent !== "parent") return fauxAssistantMessage("child done");
			return turn.lastText === "go" ? spawnOne() : fauxAssistantMessage("ok");
		},
	});
	await parent.session.prompt("go");
	// The whole result, from the record by the stored details' id (ADR 0193).
	const { id } = toolResults(parent.session, "subagent")[0]?.details as RunResult;
	return parent.service().get(id) as RunResult;
}

describe("faults inside a child", () => {
	it("an extension handler that throws in the child: the run goes on, and its result names the extension, the event and the error", async () => {
		const result = await oneChild({
			"brittle.ts": `
export default function (pi) {
	pi.on("turn_start", (_event, ctx) => {
		if (ctx.getSystemPrompt().includes("<active_agent")) throw new Error("brittle broke");
	});
}
`,
		});
		expect(result.status).toBe("completed");
		expect(result.text).toBe("child done");
		const [warning, ...rest] = result.warnings.filter((line) => line.includes("extension-error"));
		expect(rest).toEqual([]);
		expect(warning).toMatch(/\/extensions\/brittle\.ts:\d+:\d+ error extension-error this extension's turn_start handler threw in the sub-agent: brittle broke \(fix the extension, or keep it out of sub-agents with childExtensions\.exclude/);
		expect(toolResults(parent?.session as Parent["session"], "subagent")[0]?.text).toContain("brittle broke");
	});

	it("an extension that fails to load in the child: the child runs without it, and its result says so", async () => {
		const result = await oneChild({
			"fickle.ts": `
export default function (pi) {
	// The parent's load and cadre's discovery of the parent's extensions are the first two.
	const g = globalThis;
	g.__cadreLoads = (g.__cadreLoads ?? 0) + 1;
	if (g.__cadreLoads > 2) throw new Error("fickle cannot start here");
}
`,
		});
		expect(result.status).toBe("completed");
		expect(result.warnings.join("\n")).toMatch(/\/extensions\/fickle\.ts:\d+:\d+ error extension-error this extension failed to load in the sub-agent, which ran without it: .*fickle cannot start here/);
	});

	it("a message steered to a queued run that pi refuses at delivery is reported in the result, never an unhandled rejection", async () => {
		let release: () => void = () => {};
		const held = new Promise<void>((resolve) => (release = resolve));
		parent = await createParent({
			subagentSettings: { maxConcurrent: 1 },
			agentExtensions: { "commands.ts": `export default function (pi) { pi.registerCommand("deploy", { description: "d", handler: async () => {} }); }` },
			script: async (turn) => {
				if (turn.agent !== "parent") {
					if (turn.lastText.includes("first")) await held;
					return fauxAssistantMessage("child done");
				}
				return turn.lastText !== "go"
					? fauxAssistantMessage("ok")
					: fauxAssistantMessage(
							[
								fauxToolCall("subagent", { prompt: "first", description: "first", run_in_background: true }),
								fauxToolCall("subagent", { prompt: "second", description: "second", run_in_background: true }),
							],
							{ stopReason: "toolUse" },
						);
			},
		});
		await parent.session.prompt("go");
		const service = parent.service();
		const [, second] = service.list();
		expect(second?.status).toBe("queued");
		await service.steer(second?.id as string, "/deploy now");
		release();
		const id = second?.id as string;
		await until(() => service.get(id)?.status === "completed", "the steered run's end");
		const result = service.get(id) as RunResult;
		expect(result.status).toBe("completed");
		expect(result.warnings.join("\n")).toContain(
			`warning steer-undelivered the message "/deploy now" steered to it was not delivered: Extension command "/deploy" cannot be queued.`,
		);
	});
});
