/**
 * The budget gate of one child session (issue 22, ADR 0176): it counts what the child's answers
 * used (pi's usage of each assistant message: input + output + cache tokens, and its cost), and
 * holds the child to the limit it reserved —
 *
 * - **before each model request** (a wrap of the agent's stream function): used + in flight
 *   against the limit; at the limit no request goes out (the call gets an aborted signal, so the
 *   provider sends nothing);
 * - **after each turn** (a wrap of the agent's `finishTurn`): at ≥ 80% one wrap-up steer, at the
 *   limit the loop ends there, with no further request;
 * - **while an answer streams**: when pi reports usage in a partial answer that passes the limit,
 *   the answer is aborted;
 * - **time**: a timer at the deadline aborts the child.
 *
 * The arithmetic is the pure meter's (runtime/budget-meter.ts).
 */
import type { AgentSession } from "@earendil-works/pi-coding-agent";
import type { Budget, BudgetDimension } from "../../core/budget.ts";
import { type BudgetUsed, checkBudget, WARN_AT, wrapUpMessage } from "../budget-meter.ts";

/** What the gate knows of a child's spending. */
export interface BudgetGateState {
	used: BudgetUsed;
	stoppedBy: BudgetDimension | null;
	warned: boolean;
}

/** The gate of one child session. */
export interface BudgetGate {
	/** Starts the clock (at the child's first prompt). */
	start(): void;
	state(): BudgetGateState;
	/**
	 * Also hold the child to `room()` (the ledger's room for the run: less than its limit once its
	 * children hold part of it). When only what `children` hold keeps a request back and one of
	 * them is live, the request waits for it to end instead of stopping the run (ADR 0179).
	 */
	setRoom(room: () => Budget | null, children?: GateChildren): void;
	dispose(): void;
}

type Usage = { input?: number; output?: number; cacheRead?: number; cacheWrite?: number; cost?: { total?: number } };
type StreamFn = (model: unknown, context: unknown, options?: { signal?: AbortSignal; [key: string]: unknown }) => unknown;
type FinishTurn = (turn: unknown, signal?: AbortSignal) => unknown;
/** The agent's two hooks the gate wraps (pi-agent-core's `Agent`: public, assignable). */
interface AgentHooks {
	streamFunction: StreamFn;
	finishTurn?: FinishTurn;
}

/** The children of the gated run, as the ledger sees them. */
export interface GateChildren {
	/** Whether one of them still holds part of the run's reservation. */
	live(): boolean;
	/** Settles when the next of them ends (it gave back what it did not use). */
	released(): Promise<void>;
}

/** Settles when `signal` aborts (never without one). */
function abortOf(signal: AbortSignal | undefined): Promise<void> {
	return new Promise((resolve) => signal?.addEventListener("abort", () => resolve(), { once: true }));
}

/** The longest a Node timer waits. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * Calls `done` at `deadline` (ms since the epoch). A timer waits at most 2^31-1 ms (about 24.8
 * days): a longer deadline is waited for in steps; `keep` is given each timer (to clear it).
 */
function atDeadline(deadline: number, now: () => number, keep: (timer: NodeJS.Timeout) => void, done: () => void): void {
	const left = deadline - now();
	if (left <= 0) return done();
	const timer = setTimeout(() => atDeadline(deadline, now, keep, done), Math.min(left, MAX_TIMER_MS));
	timer.unref?.();
	keep(timer);
}

const lower = (a: number | null, b: number | null): number | null => (a === null ? b : b === null ? a : Math.min(a, b));

const tokensOf = (usage: Usage): number => (usage.input ?? 0) + (usage.output ?? 0) + (usage.cacheRead ?? 0) + (usage.cacheWrite ?? 0);

/** Installs the gate on `session` for `limit` (the run's reserved budget). */
export function installBudgetGate(session: AgentSession, reserved: Budget, now: () => number = Date.now): BudgetGate {
	let room: (() => Budget | null) | null = null;
	let children: GateChildren | null = null;
	const effective: Budget = { ...reserved };
	/** The limit now: the reservation, lowered to the room the ledger has for the run. */
	const limitNow = (): Budget => {
		if (room === null) return reserved;
		const r = room();
		effective.tokens = lower(reserved.tokens, r?.tokens ?? null);
		effective.cost = lower(reserved.cost, r?.cost ?? null);
		return effective;
	};
	const limit = reserved;
	const used: BudgetUsed = { tokens: 0, cost: 0, time: 0 };
	const inFlight = { tokens: 0, cost: 0 };
	const state = { stoppedBy: null as BudgetDimension | null, warned: false };
	let startedAt: number | null = null;
	let timer: NodeJS.Timeout | null = null;
	const tick = () => {
		if (startedAt !== null) used.time = (now() - startedAt) / 1000;
	};
	const stop = (dimension: BudgetDimension) => {
		if (state.stoppedBy === null) state.stoppedBy = dimension;
	};
	const agent = session.agent as unknown as AgentHooks;
	const stream = agent.streamFunction;
	/** Over the room only for what live children hold: they may still give some back. */
	const heldBack = (over: BudgetDimension | null, withInFlight: boolean) =>
		over !== null && children !== null && checkBudget(limit, used, withInFlight ? inFlight : undefined).over === null && children.live();
	// Before each request: at the limit nothing goes out — the provider gets an aborted signal.
	agent.streamFunction = async (model, context, options) => {
		tick();
		let check = checkBudget(limitNow(), used, inFlight);
		// Its children hold the rest: wait for one to end and give back what it did not use.
		const aborted = heldBack(check.over, true) ? abortOf(options?.signal) : null;
		while (aborted && state.stoppedBy === null && heldBack(check.over, true) && !options?.signal?.aborted) {
			await Promise.race([(children as GateChildren).released(), aborted]);
			tick();
			check = checkBudget(limitNow(), used, inFlight);
		}
		if (check.over !== null || state.stoppedBy !== null) {
			stop(check.over ?? (state.stoppedBy as BudgetDimension));
			return stream(model, context, { ...options, signal: AbortSignal.abort(new Error("cadre: the run's budget is spent")) });
		}
		return stream(model, context, options);
	};
	const finishTurn = agent.finishTurn;
	// After each turn: the wrap-up steer once at 80%, the end of the loop at the limit.
	agent.finishTurn = async (turn, signal) => {
		const decided = await finishTurn?.(turn, signal);
		tick();
		const check = checkBudget(limitNow(), used);
		if ((check.over !== null && !heldBack(check.over, false)) || state.stoppedBy !== null) {
			stop(check.over ?? (state.stoppedBy as BudgetDimension));
			return { action: "end" };
		}
		// What live children hold is not spent yet: while they run, the warning counts the run's own answers.
		const share = children?.live() ? checkBudget(limit, used).share : check.share;
		if (share >= WARN_AT && !state.warned) {
			state.warned = true;
			await session.steer(wrapUpMessage(share)).catch(() => undefined);
		}
		return decided;
	};
	const unsubscribe = session.subscribe((event) => {
		if (event.type !== "message_update" && event.type !== "message_end") return;
		const message = event.message as { role?: string; usage?: Usage };
		if (message.role !== "assistant" || !message.usage) return;
		const tokens = tokensOf(message.usage);
		const cost = message.usage.cost?.total ?? 0;
		if (event.type === "message_end") {
			used.tokens += tokens;
			used.cost += cost;
			inFlight.tokens = 0;
			inFlight.cost = 0;
			return;
		}
		// A streaming answer whose reported usage passes the limit is aborted.
		inFlight.tokens = tokens;
		inFlight.cost = cost;
		const now = limitNow();
		const check = checkBudget(now, used, inFlight);
		if (check.over !== null && !heldBack(check.over, true) && (used.tokens + tokens > (now.tokens ?? Infinity) || used.cost + cost > (now.cost ?? Infinity))) {
			stop(check.over);
			void session.abort().catch(() => undefined);
		}
	});
	return {
		start() {
			if (startedAt !== null) return;
			startedAt = now();
			if (limit.time === null) return;
			atDeadline(startedAt + limit.time * 1000, now, (next) => (timer = next), () => {
				tick();
				stop("time");
				void session.abort().catch(() => undefined);
			});
		},
		setRoom(next, of) {
			room = next;
			children = of ?? null;
		},
		state() {
			tick();
			return { used: { ...used }, stoppedBy: state.stoppedBy, warned: state.warned };
		},
		dispose() {
			if (timer) clearTimeout(timer);
			timer = null;
			unsubscribe();
			agent.streamFunction = stream;
			agent.finishTurn = finishTurn;
		},
	};
}
