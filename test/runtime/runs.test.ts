/**
 * The run registry on its own, with a scripted child handle and isolation hooks: races a real pi
 * session cannot pin down (a stop that arrives while a finished run's isolation is being wrapped up).
 */
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { describe, expect, it } from "vitest";
import type { ChildEvent } from "../../src/runtime/pi/child-events.ts";
import type { ChildHandle } from "../../src/runtime/pi/child-session.ts";
import type { ChildMessage } from "../../src/runtime/pi/conversation.ts";
import { formatResult, runResult } from "../../src/runtime/result.ts";
import { createRunRegistry, type LifecycleEvent, type RunRecord } from "../../src/runtime/runs.ts";
import { record as runRecord } from "./record.ts";
import { scriptedChild, scriptedPlan } from "./support/scripted-child.ts";

const child = scriptedChild;
const plan = scriptedPlan;

/**
 * A child that ends `turns` turns (one tool call each), then answers. Before each turn it waits for
 * `before(turn)`, by default a 1 ms timer (so a record write asked for earlier comes first).
 */
function busyChild(turns: number, before: (turn: number) => Promise<unknown> = () => new Promise((resolve) => setTimeout(resolve, 1))): ChildHandle {
	let listener: (event: ChildEvent) => void = () => {};
	return {
		...child("done"),
		subscribe: (l) => ((listener = l), () => {}),
		run: async () => {
			for (let turn = 1; turn <= turns; turn++) {
				await before(turn);
				listener({ type: "turn_start", turn });
				listener({ type: "assistant", text: "", stopReason: "toolUse", errorMessage: null });
				listener({ type: "turn_end", turn, toolCalls: 1 });
			}
		},
	};
}

/** Isolation whose wrap-up waits for the test: `finishStarted` once it began, `releaseFinish()` ends it. */
function heldWrapUp() {
	let releaseFinish: () => void = () => {};
	let finishing: () => void = () => {};
	const finishStarted = new Promise<void>((resolve) => (finishing = resolve));
	const isolation = {
		prepare: async () => ({ cwd: null, report: null }),
		finish: async () => {
			finishing();
			await new Promise<void>((resolve) => (releaseFinish = resolve));
			return null;
		},
	};
	return { isolation, finishStarted, releaseFinish: () => releaseFinish() };
}

describe("run records", () => {
	it("are saved at creation, at state changes and at the end, on turn ends at most once per interval, one write at a time", async () => {
		const saved: string[] = [];
		let inFlight = 0;
		let overlapped = false;
		let written = 0;
		const waiting: { count: number; resolve: () => void }[] = [];
		/** Resolves once `count` writes have finished. */
		const writes = (count: number) => new Promise<void>((resolve) => (written >= count ? resolve() : waiting.push({ count, resolve })));
		const save = async (run: RunRecord) => {
			saved.push(`${run.state}:${run.transcript ?? "-"}`);
			overlapped ||= ++inFlight > 1;
			await new Promise((resolve) => setImmediate(resolve));
			inFlight--;
			written++;
			for (const waiter of waiting.filter((w) => w.count <= written)) waiter.resolve();
			return null;
		};
		const records = { save, saveNow: (run: RunRecord) => (saved.push(`end ${run.state}:${run.transcript ?? "-"}`), overlapped ||= inFlight > 0, null) };
		const events: string[] = [];
		const slow = createRunRegistry({ maxConcurrent: 1, emit: (name) => events.push(`${name}:${saved.at(-1)}`), records, parentSession: "s-1", saveDelayMs: 0 });
		const { run, done } = await slow.spawn(plan(busyChild(50)), { background: true });
		expect((await done).turns).toBe(50);
		expect(run.parentSession).toBe("s-1");
		// Creation and start are one write; the end is the last.
		expect(saved).toEqual(["running:/t/child.jsonl", "end completed:/t/child.jsonl"]);
		// The end is on disk before the terminal event goes out.
		expect(events.at(-1)).toBe("cadre:completed:end completed:/t/child.jsonl");
		expect(overlapped).toBe(false);
		saved.length = 0;
		// Without the interval every turn end is written (each turn waits for the write before it).
		written = 0;
		const eager = createRunRegistry({ maxConcurrent: 1, emit: () => {}, records, progressSaveMs: 0, saveDelayMs: 0 });
		await (await eager.spawn(plan(busyChild(50, (turn) => writes(turn))), { background: true })).done;
		expect(saved).toHaveLength(1 + 50 + 1);
		expect(overlapped).toBe(false);
		saved.length = 0;
		// A run that ends before the first write is due is written once, at its end.
		const quick = createRunRegistry({ maxConcurrent: 1, emit: () => {}, records });
		await (await quick.spawn(plan(child("fast")), { background: true })).done;
		expect(saved).toEqual(["end completed:/t/child.jsonl"]);
	});

	it("a record that cannot be saved does not stop the run; its result says it was not persisted", async () => {
		const denied = "the run record could not be saved to /x: EACCES";
		const registry = createRunRegistry({ maxConcurrent: 1, emit: () => {}, records: { save: async () => denied, saveNow: () => denied } });
		const { done } = await registry.spawn(plan(child("the answer")), { background: true });
		const run = await done;
		expect(run.state).toBe("completed");
		expect(run.text).toBe("the answer");
		const result = runResult(run, 1000);
		expect(result.persistError).toContain("EACCES");
		expect(formatResult(result)).toContain("Not persisted: the run record could not be saved to /x: EACCES; after this session this run cannot be listed or resumed.");
		const boom = () => {
			throw new Error("boom");
		};
		const throwing = createRunRegistry({ maxConcurrent: 1, emit: () => {}, records: { save: async () => boom(), saveNow: boom } });
		expect((await (await throwing.spawn(plan(child("x")), { background: true })).done).persistError).toContain("boom");
	});

	it("earlier processes' runs are listed first, fetched as they are, never steered or stopped here", async () => {
		const finished = runRecord({ id: "explore-old001", createdAt: 1 });
		const elsewhere = runRecord({ id: "explore-away01", state: "running", endedAt: null, activity: "running in another pi process (pid 42)", createdAt: 2 });
		const registry = createRunRegistry({ maxConcurrent: 1, emit: () => {}, earlier: [finished, elsewhere] });
		const { run, done } = await registry.spawn(plan(child("new")), { background: true });
		await done;
		expect(registry.list().map((r) => r.id)).toEqual(["explore-old001", "explore-away01", run.id]);
		expect(registry.get("explore-old001")).toBe(finished);
		expect(await registry.wait("explore-old001", null)).toBe(finished);
		expect(await registry.wait("explore-away01", null)).toBeNull();
		expect(await registry.stop("explore-away01")).toBe(elsewhere);
		expect(elsewhere.state).toBe("running");
		await expect(registry.steer("explore-old001", "hi")).rejects.toThrow(/already completed; steer only reaches queued or running runs/);
		await expect(registry.steer("explore-away01", "hi")).rejects.toThrow(/running in another pi process \(pid 42\); it can be steered or stopped only there/);
		await registry.stopAll();
		expect(elsewhere.state).toBe("running");
	});
});

describe("run registry", () => {
	it("a stop that arrives while a finished run's isolation is wrapping up wins: the run is recorded stopped", async () => {
		const { isolation, finishStarted, releaseFinish } = heldWrapUp();
		const events: { name: LifecycleEvent; status: unknown }[] = [];
		const registry = createRunRegistry({ maxConcurrent: 1, emit: (name, payload) => events.push({ name, status: payload.status }), isolation });
		const { run, done } = await registry.spawn(plan(child("final answer")), { background: true });
		await finishStarted;
		const stopped = registry.stop(run.id);
		releaseFinish();
		const [byStop, final] = await Promise.all([stopped, done]);
		expect(byStop?.state).toBe("stopped");
		expect(final.state).toBe("stopped");
		expect(events.filter((e) => e.name === "cadre:completed" || e.name === "cadre:failed")).toEqual([{ name: "cadre:failed", status: "stopped" }]);
	});

	it("a spawn still preparing its isolation when the parent session ends is stopped, and no child is created", async () => {
		let releasePrepare: () => void = () => {};
		let preparing: () => void = () => {};
		const prepareStarted = new Promise<void>((resolve) => (preparing = resolve));
		let created = 0;
		const registry = createRunRegistry({
			maxConcurrent: 1,
			emit: () => {},
			isolation: {
				prepare: async () => {
					preparing();
					await new Promise<void>((resolve) => (releasePrepare = resolve));
					return { cwd: null, report: null };
				},
				finish: async () => null,
			},
		});
		const handle = child("never");
		const spawning = registry.spawn({ ...plan(handle), createChild: async () => (created++, handle) }, { background: true });
		await prepareStarted;
		await registry.stopAll();
		releasePrepare();
		const { run, done } = await spawning;
		expect((await done).state).toBe("stopped");
		expect(run.state).toBe("stopped");
		expect(created).toBe(0);
	});

	it("feeds live displays: onChange after each visible change, the current tool with its arguments, context use, the live conversation", async () => {
		let emitEvent: (event: ChildEvent) => void = () => {};
		let finishRun: () => void = () => {};
		const running = new Promise<void>((resolve) => (finishRun = resolve));
		let started: () => void = () => {};
		const isRunning = new Promise<void>((resolve) => (started = resolve));
		const messages: ChildMessage[] = [{ role: "user", text: "p" }];
		const handle: ChildHandle = {
			...child("done"),
			subscribe: (listener) => {
				emitEvent = listener;
				return () => {};
			},
			run: async () => {
				started();
				await running;
			},
			contextUsage: () => ({ tokens: 1200, window: 128_000, percent: 0.9 }),
			messages: () => messages,
		};
		const changes: string[] = [];
		const registry = createRunRegistry({ maxConcurrent: 1, emit: () => {}, onChange: (run) => changes.push(`${run.state}:${run.activity}`) });
		const { run, done } = await registry.spawn(plan(handle), { background: true });
		await isRunning;
		emitEvent({ type: "turn_start", turn: 1 });
		emitEvent({ type: "tool_start", toolName: "read", args: { path: "src/a.ts" } });
		expect(run.currentTool).toEqual({ name: "read", args: { path: "src/a.ts" } });
		emitEvent({ type: "turn_end", turn: 1, toolCalls: 1 });
		expect(run.context).toEqual({ tokens: 1200, window: 128_000, percent: 0.9 });
		expect(registry.conversation(run.id)).toEqual(messages);
		emitEvent({ type: "turn_start", turn: 2 });
		expect(run.currentTool).toBeNull();
		finishRun();
		await done;
		expect(changes).toEqual(["queued:queued", "running:starting", "running:thinking", "running:tool read", "running:tool read", "running:thinking", "completed:completed"]);
		expect(registry.conversation(run.id)).toBeNull();
	});

	it("a stop from a cadre:created listener (an extension reacting at once) ends the run stopped; it does not stay queued", async () => {
		for (const background of [true, false]) {
			const events: string[] = [];
			let created = 0;
			const handle = child("never");
			const registry = createRunRegistry({
				maxConcurrent: 1,
				emit: (name, payload) => {
					events.push(`${name}:${String(payload.status)}`);
					if (name === "cadre:created") void registry.stop(String(payload.id));
				},
			});
			const { run, done } = await registry.spawn({ ...plan(handle), createChild: async () => (created++, handle) }, { background });
			const bound = new Promise((resolve) => setTimeout(resolve, 2000, "still pending"));
			expect(await Promise.race([done.then((r) => r.state), bound])).toBe("stopped");
			expect(run.endedAt).not.toBeNull();
			expect(events).toEqual(["cadre:created:queued", "cadre:failed:stopped"]);
			expect(created).toBe(0);
		}
	});

	it("a wait that arrives while a run is finishing answers with the terminal record, not the running one", async () => {
		const { isolation, finishStarted, releaseFinish } = heldWrapUp();
		const registry = createRunRegistry({ maxConcurrent: 1, emit: () => {}, isolation });
		const { run } = await registry.spawn(plan(child("final answer")), { background: true });
		await finishStarted;
		const waited = registry.wait(run.id, null);
		const polled = registry.wait(run.id, 0);
		releaseFinish();
		const [answer, poll] = await Promise.all([waited, polled]);
		expect(answer?.state).toBe("completed");
		expect(answer?.endedAt).not.toBeNull();
		// A poll (timeout 0) while it finishes reports progress (null), never a run that is not terminal.
		expect(poll === null || poll.endedAt !== null).toBe(true);
	});

	it("a stop that wins over a run that failed while ending says both: that it was stopped, and what had failed", async () => {
		const { isolation, finishStarted, releaseFinish } = heldWrapUp();
		const registry = createRunRegistry({ maxConcurrent: 1, emit: () => {}, isolation });
		const failing: ChildHandle = { ...child(""), run: async () => Promise.reject(new Error("ENOTDIR: not a directory, open '/t/x.jsonl'")) };
		const { run, done } = await registry.spawn(plan(failing), { background: true });
		await finishStarted;
		const stopped = registry.stop(run.id);
		releaseFinish();
		await stopped;
		const final = await done;
		expect(final.state).toBe("stopped");
		expect(final.error).toBe("stopped by the user or the parent session; it had failed: ENOTDIR: not a directory, open '/t/x.jsonl'");
	});

	const throwing = (message: string) => () => {
		throw new Error(message);
	};
	for (const [callback, hooks] of [
		["display (onChange)", { onChange: throwing("display bug") }],
		["terminal callback", { onTerminal: throwing("the parent session is gone") }],
	] as const) {
		it(`a host whose ${callback} throws still gets every run settled and its slot back`, async () => {
			const registry = createRunRegistry({ maxConcurrent: 1, emit: () => {}, ...hooks });
			const first = await registry.spawn(plan(child("one")), { background: true });
			const second = await registry.spawn(plan(child("two")), { background: true });
			const bound = new Promise((resolve) => setTimeout(resolve, 2000, "still pending"));
			expect(await Promise.race([Promise.all([first.done, second.done]).then((runs) => runs.map((r) => r.state)), bound])).toEqual(["completed", "completed"]);
		});
	}
});

describe("steers", () => {
	it("a message steered after the child's last turn, which it never read, is named in the result", async () => {
		let settle: () => void = () => {};
		const settled = new Promise<void>((resolve) => (settle = resolve));
		let finishRun: () => void = () => {};
		const queued: string[] = [];
		const late: ChildHandle = {
			...child("done"),
			// The child's session settled (its last turn is over); its prompt has not returned yet.
			run: () => (settle(), new Promise<void>((resolve) => (finishRun = resolve))),
			steer: async (text) => void queued.push(text),
			unread: async () => [...queued],
		};
		const registry = createRunRegistry({ maxConcurrent: 1, emit: () => {} });
		const { run, done } = await registry.spawn(plan(late), { background: true });
		await settled;
		await registry.steer(run.id, "also check the tests");
		finishRun();
		const result = runResult(await done, 1000);
		expect(result.status).toBe("completed");
		expect(result.warnings).toEqual([
			`warning steer-undelivered the message "also check the tests" steered to it was not delivered: it came after the child's last turn (resume the run with the message to give it to the child)`,
		]);
	});
});

describe("run records that could not be written", () => {
	it("are written again once writing works: after the next run's end, and at the session's end", async () => {
		let broken = true;
		const written: string[] = [];
		const denied = "the run record could not be saved to /x: ENOTDIR";
		const records = {
			save: async () => (broken ? denied : null),
			saveNow: (run: RunRecord) => (broken ? denied : (written.push(`${run.description}:${run.state}`), null)),
		};
		const registry = createRunRegistry({ maxConcurrent: 1, emit: () => {}, records });
		const a = await (await registry.spawn({ ...plan(child("a")), description: "a" }, { background: true })).done;
		expect(a.persistError).toBe(denied);
		broken = false;
		await (await registry.spawn({ ...plan(child("b")), description: "b" }, { background: true })).done;
		expect(written).toEqual(["b:completed", "a:completed"]);
		expect(a.persistError).toBeNull();

		broken = true;
		const c = await (await registry.spawn({ ...plan(child("c")), description: "c" }, { background: true })).done;
		expect(c.persistError).toBe(denied);
		broken = false;
		await registry.stopAll();
		expect(written.at(-1)).toBe("c:completed");
		expect(c.persistError).toBeNull();
	});
});

describe("an ended run", () => {
	it("keeps nothing of its child: the registry holds the record, not the child session (issue 28)", async () => {
		setFlagsFromString("--expose-gc");
		const gc = runInNewContext("gc") as () => void;
		// The host's isolation asks for repository roots: the receipt's collector holds that callback.
		const isolation = { prepare: async () => ({ cwd: null, report: null }), finish: async () => null, repoRoot: async () => null };
		const registry = createRunRegistry({ maxConcurrent: 2, emit: () => {}, isolation });
		const kept: WeakRef<ChildHandle>[] = [];
		for (let i = 0; i < 3; i++) {
			// Made when the run asks for it, as a host does: the plan holds no child.
			const createChild = async () => {
				const handle = child(`done ${i}`);
				kept.push(new WeakRef(handle));
				return handle;
			};
			const { done } = await registry.spawn({ ...plan(child("unused")), createChild }, { background: false });
			expect((await done).state).toBe("completed");
		}
		await new Promise((resolve) => setTimeout(resolve, 10));
		gc();
		gc();
		expect(registry.list()).toHaveLength(3);
		expect(kept.filter((ref) => ref.deref() !== undefined)).toHaveLength(0);
	});
});
