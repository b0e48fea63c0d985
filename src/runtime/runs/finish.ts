/**
 * How a run ends, once: what its child leaves (text, usage, transcript, structured result,
 * unread steers, extension errors), the isolation wrap-up, the final state (a user stop wins any
 * race with finishing), the last record write, then the terminal event.
 */
import type { Diagnostic } from "../../core/diagnostics.ts";
import { checkContract, hasContract } from "../contract.ts";
import type { ChildHandle } from "../pi/child-session.ts";
import { followBudget } from "./budget.ts";
import { changed, eventPayload, quietly } from "./events.ts";
import { saveEnd } from "./persistence.ts";
import type { Internal, RegistryState } from "./state.ts";
import { notifySpawner, subtreeTotals } from "./tree.ts";
import type { TerminalState } from "./types.ts";

const STOPPED = "stopped by the user or the parent session";

/** A stopped run's error: why it stopped, and how it was ending when the stop won (`state`, `error`). */
function stoppedError(state: TerminalState, error: string | null): string {
	if (state === "stopped") return error ?? STOPPED;
	return error ? `${STOPPED}; it had ${state}: ${error}` : STOPPED;
}

/** A `steer-undelivered` diagnostic: a steered message the child's session refused. */
export function undelivered(message: string, why: string, hint: string): Diagnostic {
	const shown = message.length > 80 ? `${message.slice(0, 79)}…` : message;
	return {
		severity: "warning",
		file: null,
		line: null,
		column: null,
		code: "steer-undelivered",
		message: `the message ${JSON.stringify(shown)} steered to it was not delivered: ${why}`,
		hint,
	};
}

/** Takes into the record what the ended child leaves, then releases it. */
async function collectChild(registry: RegistryState, internal: Internal, child: ChildHandle, final: TerminalState): Promise<void> {
	const run = internal.record;
	// A message steered after the child's last turn stays unread; a stopped run's are moot.
	const unread = final === "stopped" ? [] : await child.unread().catch(() => []);
	const hint = "resume the run with the message to give it to the child";
	for (const message of unread) run.diagnostics.push(undelivered(message, "it came after the child's last turn", hint));
	run.usage = child.usage();
	followBudget(registry, internal, child);
	run.text = child.lastText();
	run.transcript = child.transcript ?? run.transcript;
	const submitted = child.structured();
	if (submitted && "value" in submitted) run.structured = submitted.value;
	// A run that did not complete is checked as it ended, without a repair turn.
	if (run.contract === null && hasContract(run.config)) {
		run.contract = checkContract(run.config, { cwd: internal.cwd, answer: run.text, structured: submitted });
		if (!run.contract.ok) run.contract.repair = { steered: false, worked: false, skipped: `the run ended ${final}` };
	}
	run.diagnostics.push(...child.diagnostics());
	try {
		child.dispose();
	} catch {
		// disposing a failed session must not hide the result
	}
	internal.child = null;
}

/** What the run did not use of its reservation returns to its parent (once). */
function releaseBudget(registry: RegistryState, internal: Internal): void {
	const budget = internal.record.budget;
	if (!internal.reserved || !budget) return;
	internal.reserved = false;
	const lent = registry.ledger.lent(internal.record.id);
	if (lent && (lent.reserved.tokens > 0 || lent.reserved.cost > 0)) budget.children = lent;
	registry.ledger.release(internal.record.id, { tokens: budget.used.tokens, cost: budget.used.cost });
}

/** Ends a run in `state` (or stopped, when a stop was asked) with `error`; a second call does nothing. */
export async function finish(registry: RegistryState, internal: Internal, state: TerminalState, error: string | null): Promise<void> {
	if (internal.finished) return;
	internal.finished = true;
	const run = internal.record;
	// A user stop wins any race with a finishing run.
	const final: TerminalState = internal.stopRequested ? "stopped" : state;
	const child = internal.child;
	if (child) await collectChild(registry, internal, child, final);
	releaseBudget(registry, internal);
	run.error = final === "stopped" ? stoppedError(state, error) : error;
	try {
		run.isolation = (await registry.isolation.finish(run, final)) ?? run.isolation;
	} catch (cause) {
		run.isolation = { ...(run.isolation ?? {}), error: cause instanceof Error ? cause.message : String(cause) };
	}
	if (internal.receipt) run.receipt = await internal.receipt.finish(run.isolation).catch(() => null);
	// The collector's closures share the driver's scope, which holds the child session: a kept
	// collector would keep every ended child's session alive in the registry (issue 28).
	internal.receipt = undefined;
	await internal.writing;
	// A stop that arrived while isolation was wrapping up still wins (the run was not terminal).
	run.state = internal.stopRequested ? "stopped" : final;
	if (run.state !== final) run.error = stoppedError(state, error);
	run.endedAt = Date.now();
	run.activity = run.state;
	run.currentTool = null;
	// Its subtree has ended by now (execute.ts stops what it left running): the totals are final.
	Object.assign(run, subtreeTotals(registry, run));
	// Written before the terminal event: whoever reacts to it (or a session started next) reads the end.
	saveEnd(registry, internal);
	// A host callback that throws must not keep the run from settling or its slot from coming back.
	quietly(() => registry.options.emit(run.state === "completed" ? "cadre:completed" : "cadre:failed", eventPayload(run)));
	quietly(() => registry.options.onTerminal?.(run));
	changed(registry, run);
	internal.resolveDone(run);
	notifySpawner(registry, run);
}
