/**
 * Completion notifications through a real pi parent (issue 15): children that finish while the
 * parent is mid-turn cost one message and one parent request; children that finish while it is
 * idle are delivered at once, one by one; a child that finishes while a run is starting joins that
 * run's first request; a fetched child is left out; no child is notified twice. Children are held
 * back by the script (a promise per child), so nothing depends on timing.
 */
import type { ExtensionAPI } from "@earendil-works/pi-coding-agent";
import { Type } from "typebox";
import { afterEach, describe, expect, it } from "vitest";
import type { NotificationDetails } from "../../src/hosts/pi/notifications.ts";
import { createParent, fauxAssistantMessage, fauxToolCall, type Parent, type Turn, until } from "./harness.ts";

let parent: Parent | null = null;
afterEach(() => {
	parent?.dispose();
	parent = null;
});

function gate() {
	let open = () => {};
	const promise = new Promise<void>((resolve) => (open = resolve));
	return { promise, open };
}

/** The `TASK<n>` marker of a child's prompt. */
function taskOf(turn: Turn): number {
	return Number(/TASK(\d+)END/.exec(JSON.stringify(turn.messages[0]))?.[1] ?? -1);
}

function spawnCalls(count: number) {
	return fauxAssistantMessage(
		Array.from({ length: count }, (_, i) =>
			fauxToolCall("subagent", { prompt: `TASK${i}END`, description: `task ${i}`, subagent_type: "explore", run_in_background: true }),
		),
		{ stopReason: "toolUse" },
	);
}

function lastTool(turn: Turn): string | null {
	return turn.last?.role === "toolResult" ? (turn.last as { toolName: string }).toolName : null;
}

const isPrompt = (turn: Turn, text: string) => turn.last?.role === "user" && turn.lastText === text;

/**
 * The parent spawns one child per gate, then ends its turn; child n answers once gate n is open; the
 * parent answers each notification with "noted".
 */
function gatedScript(gates: { promise: Promise<void> }[]) {
	return async (turn: Turn) => {
		if (turn.agent === "explore") {
			await gates[taskOf(turn)]?.promise;
			return fauxAssistantMessage(`finding ${taskOf(turn)}`);
		}
		if (isPrompt(turn, "go")) return spawnCalls(gates.length);
		if (lastTool(turn) === "subagent") return fauxAssistantMessage("spawned");
		return fauxAssistantMessage("noted");
	};
}

/** A parent tool that returns once `count` children have completed (the parent stays mid-turn). */
function waitForCompletions(pi: ExtensionAPI): void {
	let completed = 0;
	const waiters: (() => void)[] = [];
	pi.events.on("cadre:completed", () => {
		completed++;
		for (const wake of waiters.splice(0)) wake();
	});
	pi.registerTool({
		name: "wait_children",
		label: "wait",
		description: "Wait until a number of children completed.",
		parameters: Type.Object({ count: Type.Number() }),
		async execute(_id, params) {
			while (completed < params.count) await new Promise<void>((resolve) => waiters.push(resolve));
			return { content: [{ type: "text", text: `${completed} completed` }], details: undefined };
		},
	});
}

/** The cadre notifications in the parent session: content and the ids of the children they carry. */
function notifications(p: Parent): { content: string; ids: string[] }[] {
	return p.session.messages
		.filter((m) => m.role === "custom" && (m as { customType?: string }).customType === "cadre-notification")
		.map((m) => {
			const message = m as { content: unknown; details: NotificationDetails };
			return { content: String(message.content), ids: message.details.runs.map((run) => run.id) };
		});
}

function expectEachNotifiedOnce(p: Parent) {
	const ids = notifications(p).flatMap((n) => n.ids);
	expect(new Set(ids).size).toBe(ids.length);
}

const parentRequests = (p: Parent) => p.requests.filter((turn) => turn.agent === "parent");
const idOf = (p: Parent, description: string) => String(p.events.find((e) => e.name === "cadre:created" && e.payload.description === description)?.payload.id);

describe("completion notifications", () => {
	it("20 children that finish while the parent is mid-turn: one notification message, one further parent request", async () => {
		parent = await createParent({
			extensionFactories: [waitForCompletions],
			script: (turn) => {
				if (turn.agent === "explore") return fauxAssistantMessage(`finding ${taskOf(turn)}`);
				if (isPrompt(turn, "go")) return spawnCalls(20);
				if (lastTool(turn) === "subagent") return fauxAssistantMessage([fauxToolCall("wait_children", { count: 20 })], { stopReason: "toolUse" });
				if (lastTool(turn) === "wait_children") return fauxAssistantMessage("turn over");
				return fauxAssistantMessage("read the notification");
			},
		});
		await parent.session.prompt("go");
		await parent.session.waitForIdle();
		const [only, ...rest] = notifications(parent);
		expect(rest).toHaveLength(0);
		expect(only?.ids).toHaveLength(20);
		expect(new Set(only?.ids)).toEqual(new Set(parent.events.filter((e) => e.name === "cadre:completed").map((e) => e.payload.id)));
		expect(only?.content.split("\n")[0]).toMatch(/^20 background sub-agents finished: /);
		for (let i = 0; i < 20; i++) expect(only?.content).toContain(`finding ${i}`);
		const requests = parentRequests(parent);
		const turnOver = requests.findIndex((turn) => lastTool(turn) === "wait_children");
		expect(requests.slice(turnOver + 1)).toHaveLength(1);
		expect(requests.at(-1)?.lastText).toContain("20 background sub-agents finished");
		expectEachNotifiedOnce(parent);
	});

	it("every fan-out of a session costs the same parent requests: 10 children admitted at once are one notification, the fourth time too", async () => {
		// A warm fan-out runs each child's whole life without the event loop turning: nothing may make
		// a child's end wait for the loop (a deferred write did, so the ends came one per parent turn).
		parent = await createParent({
			subagentSettings: { maxConcurrent: 10 },
			script: (turn) => {
				if (turn.agent === "explore") return fauxAssistantMessage(`finding ${taskOf(turn)}`);
				if (turn.last?.role === "user" && turn.lastText?.startsWith("go")) return spawnCalls(10);
				if (lastTool(turn) === "subagent") return fauxAssistantMessage("spawned");
				return fauxAssistantMessage("noted");
			},
		});
		const perFanOut: number[] = [];
		for (let round = 0; round < 4; round++) {
			const before = parentRequests(parent).length;
			const delivered = notifications(parent).flatMap((n) => n.ids).length;
			await parent.session.prompt(`go ${round}`);
			await until(() => notifications(parent as Parent).flatMap((n) => n.ids).length === delivered + 10 && (parent as Parent).session.isIdle, `the ten children of fan-out ${round} delivered`);
			perFanOut.push(parentRequests(parent).length - before);
		}
		expect(perFanOut).toEqual([3, 3, 3, 3]);
		expectEachNotifiedOnce(parent);
	});

	it("5 children that finish one by one while the parent is idle are each delivered at once", async () => {
		const gates = Array.from({ length: 5 }, gate);
		parent = await createParent({
			script: gatedScript(gates),
		});
		await parent.session.prompt("go");
		await parent.session.waitForIdle();
		for (let i = 0; i < 5; i++) {
			const before = parentRequests(parent).length;
			const id = idOf(parent, `task ${i}`);
			gates[i]?.open();
			// Nothing else happens: the completion alone starts the parent's turn.
			await until(() => (parent ? parentRequests(parent).length > before : false), `the turn for child ${i}`);
			await parent.session.waitForIdle();
			expect(parentRequests(parent)).toHaveLength(before + 1);
			expect(parentRequests(parent).at(-1)?.lastText).toContain(`1 background sub-agent finished: ${id} (completed)`);
			expect(notifications(parent).at(-1)?.ids).toEqual([id]);
		}
		expect(notifications(parent)).toHaveLength(5);
		expectEachNotifiedOnce(parent);
	});

	it("a child that finishes while the notified turn is starting joins that turn's request", async () => {
		const gates = [gate(), gate()];
		let secondDone: Promise<void> | null = null;
		const joinWhileStarting = (pi: ExtensionAPI) => {
			const done = gate();
			pi.events.on("cadre:completed", (payload) => {
				if ((payload as { description: string }).description === "task 1") done.open();
			});
			pi.on("before_agent_start", async (event) => {
				if (event.messageType !== "custom" || secondDone) return;
				secondDone = done.promise;
				gates[1]?.open();
				await secondDone;
			});
		};
		parent = await createParent({
			extensionFactories: [joinWhileStarting],
			script: gatedScript(gates),
		});
		await parent.session.prompt("go");
		await parent.session.waitForIdle();
		const before = parentRequests(parent).length;
		gates[0]?.open();
		await until(() => (parent ? parentRequests(parent).length > before : false), "the notified turn");
		await parent.session.waitForIdle();
		const [first, second] = [idOf(parent, "task 0"), idOf(parent, "task 1")];
		const after = parentRequests(parent).slice(before);
		expect(after).toHaveLength(1);
		const seen = JSON.stringify(after[0]?.messages);
		expect(seen).toContain(`finished: ${first} (completed)`);
		expect(seen).toContain(`finished: ${second} (completed)`);
		expect(notifications(parent).map((n) => n.ids)).toEqual([[first], [second]]);
		expectEachNotifiedOnce(parent);
	});

	it("a child that finishes while the user's prompt is being prepared joins that prompt's request (it starts no turn of its own)", async () => {
		const gates = [gate()];
		let preparing: Promise<void> | null = null;
		// The user's prompt waits in pi's input hooks (an extension's, after cadre's) while the child finishes.
		const slowInput = (pi: ExtensionAPI) => {
			const done = gate();
			pi.events.on("cadre:completed", () => done.open());
			pi.on("input", async (event) => {
				if (event.text !== "next") return { action: "continue" as const };
				preparing = done.promise;
				gates[0]?.open();
				await preparing;
				return { action: "continue" as const };
			});
		};
		parent = await createParent({ extensionFactories: [slowInput], script: gatedScript(gates) });
		await parent.session.prompt("go");
		await parent.session.waitForIdle();
		const before = parentRequests(parent).length;
		await parent.session.prompt("next");
		await parent.session.waitForIdle();
		expect(preparing).not.toBeNull();
		const id = idOf(parent, "task 0");
		const after = parentRequests(parent).slice(before);
		expect(after).toHaveLength(1);
		const seen = JSON.stringify(after[0]?.messages);
		expect(seen).toContain(`finished: ${id} (completed)`);
		expect(seen).toContain("next");
		expectEachNotifiedOnce(parent);
	});

	it("a child fetched with get_subagent_result before delivery is left out of the message", async () => {
		parent = await createParent({
			extensionFactories: [waitForCompletions],
			script: (turn) => {
				if (turn.agent === "explore") return fauxAssistantMessage(`finding ${taskOf(turn)}`);
				if (isPrompt(turn, "go")) return spawnCalls(2);
				if (lastTool(turn) === "subagent") return fauxAssistantMessage([fauxToolCall("wait_children", { count: 2 })], { stopReason: "toolUse" });
				if (lastTool(turn) === "wait_children" && parent) {
					return fauxAssistantMessage([fauxToolCall("get_subagent_result", { agent_id: idOf(parent, "task 0") })], { stopReason: "toolUse" });
				}
				if (lastTool(turn) === "get_subagent_result") return fauxAssistantMessage("turn over");
				return fauxAssistantMessage("noted");
			},
		});
		await parent.session.prompt("go");
		await parent.session.waitForIdle();
		const fetched = idOf(parent, "task 0");
		const [only, ...rest] = notifications(parent);
		expect(rest).toHaveLength(0);
		expect(only?.ids).toEqual([idOf(parent, "task 1")]);
		expect(only?.content).not.toContain(fetched);
		expectEachNotifiedOnce(parent);
	});
});
