/**
 * A started run, from its child session's creation to its end: the `cadre:started` event, the
 * child's events folded into the record (turns, tools, usage, context, the `max_turns` warning),
 * messages buffered before the first turn, the contract check, and the terminal state.
 */
import { budgetStopMessage } from "../budget-meter.ts";
import type { ChildEvent } from "../pi/child-events.ts";
import type { ChildHandle } from "../pi/child-session.ts";
import { createReceiptCollector } from "../receipt.ts";
import { verifyRun } from "../verify-run.ts";
import { keepContract, noRepair } from "./contract-repair.ts";
import { changed, eventPayload } from "./events.ts";
import { stopDescendants } from "./control.ts";
import { bindBudgetRoom, followBudget } from "./budget.ts";
import { finish, undelivered } from "./finish.ts";
import { save } from "./persistence.ts";
import type { Internal, RegistryState } from "./state.ts";
import type { TerminalState } from "./types.ts";

/** The child's last answer, as far as the run saw it. */
type Seen = { last: { stopReason: string; errorMessage: string | null } | null };

/** Runs a started run to its end; the limiter's slot (if any) is held until it is terminal (isolation finished, events out). */
export async function execute(registry: RegistryState, internal: Internal, release: (() => void) | null): Promise<void> {
	// The slot may be given back and taken again while it waits on its children (tree.ts `whileWaiting`).
	internal.slot = release;
	try {
		if (!internal.finished) await runToEnd(registry, internal);
	} finally {
		const slot = internal.slot;
		internal.slot = null;
		internal.retake?.();
		slot?.();
	}
}

/** The run is running: recorded, saved, announced. */
function markStarted(registry: RegistryState, internal: Internal): void {
	const run = internal.record;
	run.state = "running";
	run.startedAt = Date.now();
	run.lastEventAt = run.startedAt;
	run.activity = "starting";
	save(registry, internal);
	registry.options.emit("cadre:started", eventPayload(run));
	changed(registry, run);
}

/** Folds one child event into the run's record. */
function onChildEvent(registry: RegistryState, internal: Internal, child: ChildHandle, event: ChildEvent, seen: Seen, deliver: (message: string) => void): void {
	const run = internal.record;
	const maxTurns = run.config.maxTurns;
	run.lastEventAt = Date.now();
	internal.receipt?.onEvent(event);
	switch (event.type) {
		case "turn_start":
			run.activity = "thinking";
			run.currentTool = null;
			if (event.turn === 1) for (const message of internal.buffered.splice(0)) deliver(message);
			break;
		case "turn_end":
			run.usage = child.usage();
			followBudget(registry, internal, child);
			if (run.lastEventAt - internal.savedAt >= registry.progressSaveMs) save(registry, internal);
			run.context = child.contextUsage();
			// The ceiling itself is enforced in the child (runtime/pi/capability-guard.ts, terminate).
			if (maxTurns !== null && event.toolCalls > 0) {
				if (event.turn === maxTurns - 2) deliver(registry.warning(2));
				if (event.turn >= maxTurns) run.limitReached = true;
			}
			break;
		case "tool_start":
			// Live totals (the answer that asked for the tool is recorded by now), so
			// /subagents and the service show tokens while the run goes on.
			run.usage = child.usage();
			followBudget(registry, internal, child);
			run.toolUses++;
			run.activity = `tool ${event.toolName}`;
			run.currentTool = { name: event.toolName, args: event.args };
			break;
		case "assistant":
			// A turn is one model answer; an answer aborted before it began, or a failed one
			// (pi retries it, or the run fails), is none.
			if (event.stopReason !== "aborted" && event.stopReason !== "error") run.turns++;
			seen.last = event;
			break;
		default:
			break;
	}
	internal.onProgress?.(run, event);
	changed(registry, run);
}

/** How a child that settled ended the run. */
function endOf(registry: RegistryState, internal: Internal, seen: Seen): { state: TerminalState; error: string | null } {
	const last = seen.last;
	if (internal.aborted) return { state: "aborted", error: null };
	if (internal.stopRequested) return { state: "stopped", error: null };
	const budget = internal.record.budget;
	if (internal.child) followBudget(registry, internal, internal.child);
	if (budget?.stoppedBy) {
		internal.record.stopReason = "budget";
		return { state: "stopped", error: budgetStopMessage(budget.stoppedBy, budget) };
	}
	if (internal.record.limitReached) return { state: "completed", error: null };
	if (last?.stopReason === "error") return { state: "failed", error: last.errorMessage ?? "the model request failed" };
	if (last?.stopReason === "aborted") return { state: "aborted", error: null };
	return { state: "completed", error: null };
}

/** Drives the child through its prompt (and a repair turn); null when it was stopped before the prompt. */
async function driveChild(registry: RegistryState, internal: Internal): Promise<{ state: TerminalState; error: string | null } | null> {
	const run = internal.record;
	const child = await internal.plan.createChild(run, internal.cwd, internal.resumeFile);
	internal.child = child;
	bindBudgetRoom(registry, internal, child);
	const hooks = registry.isolation;
	const rootOf = hooks.repoRoot ? (cwd: string) => hooks.repoRoot?.(run, cwd) ?? Promise.resolve(null) : undefined;
	const receipt = createReceiptCollector(internal.cwd, run.isolation?.isolation === "worktree", rootOf);
	internal.receipt = receipt;
	// The child's tool calls wait for what isolation left to do off the spawn path (asked for at
	// the first call, not before), those that can change a file for the receipt's look (issue 28).
	child.beforeTools?.((toolName) => {
		const ready = hooks.ready?.(run) ?? null;
		const look = receipt.beforeTool(toolName);
		return ready && look ? Promise.all([ready, look]).then(() => undefined) : (ready ?? look);
	});
	run.transcript = child.transcript;
	save(registry, internal);
	if (internal.stopRequested || internal.aborted) {
		await finish(registry, internal, internal.aborted ? "aborted" : "stopped", null);
		return null;
	}
	const maxTurns = run.config.maxTurns;
	// With max_turns ≤ 2, "two turns before the ceiling" is the start: warn before the first request.
	if (maxTurns !== null && maxTurns <= 2) internal.buffered.push(registry.warning(maxTurns));
	/** A message accepted earlier that pi refuses now (e.g. it names a command of the child's extensions). */
	const deliver = (message: string) =>
		void child.steer(message).catch((cause: unknown) => {
			const why = cause instanceof Error ? cause.message : String(cause);
			run.diagnostics.push(undelivered(message, why, "steer it again in words the child reads as a message (not one of its commands)"));
		});
	const seen: Seen = { last: null };
	const unsubscribe = child.subscribe((event) => onChildEvent(registry, internal, child, event, seen, deliver));
	try {
		await child.run(run.prompt);
		const ended = seen.last?.stopReason;
		const spent = child.budget?.()?.stoppedBy;
		if (!internal.aborted && !internal.stopRequested && !spent && ended !== "error" && ended !== "aborted") {
			await keepContract(internal, child);
			await verifyChild(internal, child);
		}
	} finally {
		unsubscribe();
	}
	return endOf(registry, internal, seen);
}

async function runToEnd(registry: RegistryState, internal: Internal): Promise<void> {
	// Stopped (or its parent call aborted) before it could be cancelled in the queue — a stop from
	// a `cadre:created` listener comes before the run is queued at all: it ends here, never started.
	if (internal.stopRequested || internal.aborted) {
		await finish(registry, internal, internal.stopRequested ? "stopped" : "aborted", internal.stopRequested ? null : "aborted by the parent");
		return;
	}
	markStarted(registry, internal);
	let end: { state: TerminalState; error: string | null } | null;
	try {
		end = await driveChild(registry, internal);
	} catch (cause) {
		end = { state: internal.aborted ? "aborted" : "failed", error: cause instanceof Error ? cause.message : String(cause) };
	}
	// A run does not outlive the run that spawned it (ADR 0174): what it left running is stopped
	// (and not told to its session, which has settled).
	internal.settled = true;
	await stopDescendants(registry, internal.record.id);
	if (end) await finish(registry, internal, end.state, end.error);
}

/** The run's own `verify` (issue 23, ADR 0117): run by cadre after the child, with one repair turn. */
async function verifyChild(internal: Internal, child: ChildHandle): Promise<void> {
	const run = internal.record;
	const verify = run.config.verify;
	if (!verify || internal.aborted || internal.stopRequested) return;
	run.verify = await verifyRun({ verify, cwd: internal.cwd, sandbox: child.shell, ...(child.runShell ? { runner: child.runShell } : {}), runId: run.id, noRepair: () => noRepair(internal), repairTurn: (m) => child.run(m), activity: (a) => (run.activity = a) });
}
