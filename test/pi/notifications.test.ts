/**
 * The notifier on its own (src/hosts/pi/notifications.ts), with a fake pi: when a completion is
 * sent, as what, and with which runs — batching while busy, joining a starting run, exactly once,
 * the print-mode rule — and the text the parent model reads.
 */
import { describe, expect, it } from "vitest";
import {
	createNotifier,
	type NotificationDetails,
	type NotificationMessage,
	notificationContent,
	type SendOptions,
	stoppedAtExit,
} from "../../src/hosts/pi/notifications.ts";
import { notificationText } from "../../src/runtime/result.ts";
import { record } from "../runtime/record.ts";

function fakePi(mode = "tui", preparingMs?: number) {
	const sent: { message: NotificationMessage; options: SendOptions }[] = [];
	const host = { idle: true, mode };
	const notifier = createNotifier({
		preparingMs,
		send: (message, options) => {
			sent.push({ message, options });
			// pi starts a run at once when a triggering message arrives while idle.
			if (options.triggerTurn && options.deliverAs !== "nextTurn") host.idle = false;
		},
		isIdle: () => host.idle,
		mode: () => host.mode,
		maxResultChars: () => 20000,
	});
	const ids = (index: number) => (sent[index]?.message.details as NotificationDetails).runs.map((run) => run.id);
	return { sent, host, notifier, ids };
}

const run = (id: string) => record({ id, description: `task ${id}`, text: `answer of ${id}` });

describe("notifier", () => {
	it("sends a completion at once while the parent is idle, starting a turn", () => {
		const { sent, notifier, ids } = fakePi();
		notifier.completed(run("a"));
		expect(sent).toHaveLength(1);
		expect(sent[0]?.options).toEqual({ triggerTurn: true, deliverAs: "followUp" });
		expect(sent[0]?.message.customType).toBe("cadre-notification");
		expect(ids(0)).toEqual(["a"]);
	});

	it("holds a completion while a prompt is being prepared and joins it to that prompt's run", () => {
		const { sent, host, notifier, ids } = fakePi();
		notifier.promptPreparing();
		// pi still looks idle: its input hooks and checks run before the run starts
		notifier.completed(run("a"));
		expect(sent).toHaveLength(0);
		host.idle = false;
		notifier.runStarting();
		notifier.completed(run("b"));
		expect(sent).toHaveLength(0);
		notifier.turnStarted();
		expect(sent).toHaveLength(1);
		expect(sent[0]?.options).toEqual({ triggerTurn: true, deliverAs: "steer" });
		expect(ids(0)).toEqual(["a", "b"]);
	});

	it("sends what a prepared prompt held when no run follows it (an input hook handled it)", async () => {
		const { sent, notifier, ids } = fakePi("tui", 20);
		notifier.promptPreparing();
		notifier.completed(run("a"));
		expect(sent).toHaveLength(0);
		await new Promise((resolve) => setTimeout(resolve, 60));
		expect(sent).toHaveLength(1);
		expect(sent[0]?.options).toEqual({ triggerTurn: true, deliverAs: "followUp" });
		expect(ids(0)).toEqual(["a"]);
	});

	it("holds completions while the parent is busy and sends all of them as one message when it settles", () => {
		const { sent, host, notifier, ids } = fakePi();
		host.idle = false;
		notifier.runStarting();
		notifier.turnStarted();
		for (const id of ["a", "b", "c"]) notifier.completed(run(id));
		expect(sent).toHaveLength(0);
		host.idle = true;
		notifier.settled();
		expect(sent).toHaveLength(1);
		expect(sent[0]?.options).toEqual({ triggerTurn: true, deliverAs: "followUp" });
		expect(ids(0)).toEqual(["a", "b", "c"]);
	});

	it("completions that land while a run starts join its first request as one steering message", () => {
		const { sent, host, notifier, ids } = fakePi();
		notifier.completed(run("a")); // idle: starts a run
		notifier.completed(run("b")); // the run is starting
		notifier.completed(run("c"));
		expect(sent).toHaveLength(1);
		notifier.runStarting();
		notifier.turnStarted();
		expect(sent).toHaveLength(2);
		expect(sent[1]?.options).toEqual({ triggerTurn: true, deliverAs: "steer" });
		expect(ids(1)).toEqual(["b", "c"]);
		// After the first request went out, completions wait for the settle.
		notifier.completed(run("d"));
		notifier.turnStarted();
		expect(sent).toHaveLength(2);
		host.idle = true;
		notifier.settled();
		expect(ids(2)).toEqual(["d"]);
	});

	it("a run the user starts is joined the same way; a later turn of the same run is not", () => {
		const { sent, host, notifier, ids } = fakePi();
		host.idle = false;
		notifier.runStarting();
		notifier.completed(run("a"));
		notifier.turnStarted();
		expect(ids(0)).toEqual(["a"]);
		expect(sent[0]?.options.deliverAs).toBe("steer");
	});

	it("leaves out a run fetched before delivery and sends nothing when none is left", () => {
		const { sent, host, notifier, ids } = fakePi();
		host.idle = false;
		const a = run("a");
		const b = run("b");
		notifier.completed(a);
		notifier.completed(b);
		a.fetched = true;
		host.idle = true;
		notifier.settled();
		expect(ids(0)).toEqual(["b"]);
		host.idle = false;
		const c = run("c");
		notifier.completed(c);
		c.fetched = true;
		host.idle = true;
		notifier.settled();
		expect(sent).toHaveLength(1);
		notifier.completed(record({ id: "d", fetched: true }));
		expect(sent).toHaveLength(1);
	});

	it("never notifies a run twice", () => {
		const { sent, host, notifier } = fakePi();
		const a = run("a");
		notifier.completed(a);
		notifier.completed(a);
		host.idle = true;
		notifier.completed(a);
		notifier.settled();
		notifier.turnStarted();
		expect(sent).toHaveLength(1);
		expect(a.notified).toBe(true);
		const b = run("b");
		host.idle = false;
		notifier.completed(b);
		notifier.completed(b);
		host.idle = true;
		notifier.settled();
		expect((sent[1]?.message.details as NotificationDetails).runs.map((r) => r.id)).toEqual(["b"]);
	});

	it.each(["print", "json"])("in %s mode never starts a turn: completions wait for the next prompt", (mode) => {
		const { sent, host, notifier, ids } = fakePi(mode);
		notifier.completed(run("a"));
		expect(sent[0]?.options).toEqual({ deliverAs: "nextTurn" });
		host.idle = false;
		notifier.runStarting();
		notifier.turnStarted();
		notifier.completed(run("b"));
		host.idle = true;
		notifier.settled();
		expect(sent[1]?.options).toEqual({ deliverAs: "nextTurn" });
		expect(ids(1)).toEqual(["b"]);
		// Before the first request of a run the answer is not given yet: joining it starts no turn.
		host.idle = false;
		notifier.runStarting();
		notifier.completed(run("c"));
		notifier.turnStarted();
		expect(sent[2]?.options).toEqual({ triggerTurn: true, deliverAs: "steer" });
	});

	it("sends nothing after the session closed", () => {
		const { sent, host, notifier } = fakePi();
		host.idle = false;
		notifier.completed(run("a"));
		notifier.close();
		host.idle = true;
		notifier.settled();
		notifier.completed(run("b"));
		expect(sent).toHaveLength(0);
	});

	it("a session that is gone counts as busy: the completion is held, not lost or thrown", () => {
		const sent: unknown[] = [];
		const notifier = createNotifier({
			send: (message) => sent.push(message),
			isIdle: () => {
				throw new Error("stale ctx");
			},
			mode: () => "tui",
			maxResultChars: () => 20000,
		});
		expect(() => notifier.completed(run("a"))).not.toThrow();
		expect(sent).toHaveLength(0);
		notifier.settled();
		expect(sent).toHaveLength(1);
	});
});

describe("notification text", () => {
	it("says how many children it covers, lists them and keeps each child's whole text", () => {
		const runs = [run("explore-a1"), record({ id: "explore-b2", state: "failed", text: null, error: "model said no" })];
		const content = notificationContent(runs);
		expect(content.split("\n")[0]).toBe("2 background sub-agents finished: explore-a1 (completed), explore-b2 (failed).");
		for (const one of runs) expect(content).toContain(notificationText(one));
		expect(content).toContain("[1/2]");
		expect(content).toContain("[2/2]");
	});

	it("a single child reads as one", () => {
		const content = notificationContent([run("explore-a1")]);
		expect(content.split("\n")[0]).toBe("1 background sub-agent finished: explore-a1 (completed).");
		expect(content).toContain(notificationText(run("explore-a1")));
	});
});

describe("children stopped at exit", () => {
	it("names each child, its type and how it ended", () => {
		const lines = stoppedAtExit([record({ id: "general-purpose-x1", type: "general-purpose", description: "sleeper", state: "stopped" })]);
		expect(lines).toEqual(["cadre: sub-agent general-purpose-x1 (general-purpose: sleeper) stopped at exit\n"]);
		expect(stoppedAtExit([])).toEqual([]);
	});
});
