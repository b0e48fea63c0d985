/**
 * The budget gate on its own (issue 22, ADR 0176), over the few parts of a pi session it touches:
 * the stream function gets an aborted signal once the limit is reached (nothing goes out), the
 * turn's end ends the loop at the limit and steers once at 80%, and an answer whose streamed usage
 * passes the limit is aborted.
 */
import type { AgentSession } from "@earendil-works/pi-coding-agent";
import { describe, expect, it } from "vitest";
import { installBudgetGate } from "../../src/runtime/pi/budget-gate.ts";

type Listener = (event: { type: string; message?: unknown }) => void;

function fakeSession() {
	const listeners = new Set<Listener>();
	const signals: (AbortSignal | undefined)[] = [];
	const steers: string[] = [];
	let aborts = 0;
	const session = {
		agent: {
			streamFunction: (_model: unknown, _context: unknown, options?: { signal?: AbortSignal }) => {
				signals.push(options?.signal);
				return "stream";
			},
			finishTurn: async (_turn: unknown): Promise<unknown> => undefined,
		},
		subscribe(listener: Listener) {
			listeners.add(listener);
			return () => listeners.delete(listener);
		},
		steer: async (text: string) => void steers.push(text),
		abort: async () => void aborts++,
	};
	const emit = (type: string, tokens: number, cost = 0) => {
		for (const listener of listeners) listener({ type, message: { role: "assistant", usage: { input: tokens, output: 0, cacheRead: 0, cacheWrite: 0, cost: { total: cost } } } });
	};
	return { session, signals, steers, emit, aborts: () => aborts, asSession: session as unknown as AgentSession };
}

const LIMIT = { tokens: 5000, cost: null, time: null };

describe("the budget gate", () => {
	it("steers once at 80%, ends the loop at the limit, and sends no request past it", async () => {
		const fake = fakeSession();
		const gate = installBudgetGate(fake.asSession, LIMIT);
		gate.start();
		const agent = fake.session.agent;
		agent.streamFunction({}, {}, {});
		fake.emit("message_end", 2000);
		expect(await agent.finishTurn({})).toBeUndefined();
		expect(fake.steers).toEqual([]);
		agent.streamFunction({}, {}, {});
		fake.emit("message_end", 2000);
		expect(await agent.finishTurn({})).toBeUndefined();
		expect(fake.steers).toEqual(["[cadre] 80% of your budget is used; wrap up: finish what you are doing and give your final answer now."]);
		agent.streamFunction({}, {}, {});
		fake.emit("message_end", 2000);
		expect(await agent.finishTurn({})).toEqual({ action: "end" });
		expect(fake.steers).toHaveLength(1);
		// Whatever asks for another request now (a steer, a repair turn) gets an aborted signal: nothing goes out.
		agent.streamFunction({}, {}, {});
		expect(fake.signals.map((signal) => signal?.aborted ?? false)).toEqual([false, false, false, true]);
		expect(gate.state()).toMatchObject({ used: { tokens: 6000 }, stoppedBy: "tokens", warned: true });
		gate.dispose();
		// Disposed: the session's own hooks are back.
		agent.streamFunction({}, {}, {});
		expect(fake.signals.at(-1)).toBeUndefined();
	});

	it("is held to the room its children leave it: no request once its own spending reaches it", () => {
		const fake = fakeSession();
		const gate = installBudgetGate(fake.asSession, { tokens: null, cost: 0.05, time: null });
		let room = 0.05;
		gate.setRoom(() => ({ tokens: null, cost: room, time: null }));
		fake.session.agent.streamFunction({}, {}, {});
		fake.emit("message_end", 100, 0.02);
		room = 0.02; // a child reserved 0.03 of its 0.05
		fake.session.agent.streamFunction({}, {}, {});
		expect(fake.signals.map((signal) => signal?.aborted ?? false)).toEqual([false, true]);
		expect(gate.state().stoppedBy).toBe("cost");
	});

	it("aborts an answer whose streamed usage passes the limit", () => {
		const fake = fakeSession();
		const gate = installBudgetGate(fake.asSession, { tokens: null, cost: 0.05, time: null });
		fake.emit("message_end", 100, 0.03);
		fake.emit("message_update", 100, 0.01);
		expect(fake.aborts()).toBe(0);
		fake.emit("message_update", 100, 0.021);
		expect(fake.aborts()).toBe(1);
		expect(gate.state().stoppedBy).toBe("cost");
	});

	it("a time limit aborts the child at its deadline", async () => {
		const fake = fakeSession();
		const gate = installBudgetGate(fake.asSession, { tokens: null, cost: null, time: 0.05 });
		gate.start();
		await new Promise((resolve) => setTimeout(resolve, 120));
		expect(fake.aborts()).toBe(1);
		expect(gate.state()).toMatchObject({ stoppedBy: "time" });
		expect(gate.state().used.time).toBeGreaterThanOrEqual(0.05);
		gate.dispose();
	});
});
