/**
 * Completion notifications (spec 04 "Runs", docs/runtime.md "Notifications", ADRs 0044, 0070,
 * 0071): what the parent hears when background children end, and when.
 *
 * - While the parent is idle a completion is sent at once and starts a turn.
 * - While a run is starting (from pi's `before_agent_start`, or from a notification that started
 *   it, to the run's first `turn_start`, which pi awaits just before it collects the first
 *   request's messages) completions join that request as one steering message.
 * - While a prompt is being prepared (from pi's `input` event through pi's own checks, before its
 *   run starts: pi looks as idle as before, but a turn a notification started then would make
 *   the prompt fail) completions wait to join its run the same way; when no run comes (an input
 *   hook handled the prompt, or pi refused it) they go out after {@link PREPARING_MS}.
 * - Otherwise the parent is busy: completions are held and sent as ONE message when it settles.
 * - Exactly once: a run the parent fetched with `get_subagent_result` before delivery is left out,
 *   and no run is ever in two messages.
 * - Print and JSON modes: a notification never starts a turn (it would replace the parent's final
 *   answer that pi prints); it waits for the next prompt instead.
 *
 * No timers but that fallback: a single child costs no added latency. Host-neutral apart from the
 * option names pi uses for `sendMessage`; the extension wires it to pi's events.
 */
import { notificationText, type RunResult, runResult } from "../../runtime/result.ts";
import type { RunRecord } from "../../runtime/runs.ts";

/** The `customType` of cadre's notification messages (a message renderer matches on it). */
export const NOTIFICATION_TYPE = "cadre-notification";

/**
 * The `details` of a `cadre-notification` message: every child it covers, in the order they
 * finished, as the same structured result `get_subagent_result` returns (text capped at
 * `maxResultChars`). One child is a batch of one.
 */
export interface NotificationDetails {
	runs: RunResult[];
}

/** The message handed to pi's `sendMessage`. */
export interface NotificationMessage {
	customType: typeof NOTIFICATION_TYPE;
	/** What the parent model reads: a header with the count and ids, then each child's text. */
	content: string;
	display: true;
	details: NotificationDetails;
}

/** pi's `sendMessage` options as the notifier uses them. */
export interface SendOptions {
	triggerTurn?: boolean;
	deliverAs: "steer" | "followUp" | "nextTurn";
}

/** What the notifier needs from its host. */
export interface NotifierHost {
	/** pi's `sendMessage`. */
	send(message: NotificationMessage, options: SendOptions): void;
	/** pi's `ctx.isIdle()`; a throw (the session is gone) counts as busy. */
	isIdle(): boolean;
	/** pi's `ctx.mode` ("tui", "rpc", "json", "print"). */
	mode(): string;
	/** Settings `maxResultChars`, for the results in `details`. */
	maxResultChars(): number;
	/** How long a prompt in preparation holds completions when no run follows (default {@link PREPARING_MS}). */
	preparingMs?: number;
}

/** The most a prompt in preparation holds completions back when no run follows it (ms). */
export const PREPARING_MS = 2000;

/** The notifier of one parent session; each method is called from the pi event it is named for. */
export interface Notifier {
	/** A background run reached a terminal state. */
	completed(run: RunRecord): void;
	/** `input`: a prompt is being prepared; completions from now on wait to join its run. */
	promptPreparing(): void;
	/** `before_agent_start`: a run is starting; completions from now on join its first request. */
	runStarting(): void;
	/** `turn_start`: the first request's messages are collected next; the join window closes. */
	turnStarted(): void;
	/** `agent_settled`: everything held goes out as one message. */
	settled(): void;
	/** `session_shutdown`: nothing is sent any more. */
	close(): void;
}

/** "Nothing starts a parent turn after the parent's final answer" applies in these modes. */
const SINGLE_SHOT_MODES: ReadonlySet<string> = new Set(["print", "json"]);

/** The text the parent model reads for a batch: how many, which, then each child's whole text. */
export function notificationContent(runs: RunRecord[]): string {
	const count = runs.length;
	const header = `${count} background sub-agent${count === 1 ? "" : "s"} finished: ${runs.map((run) => `${run.id} (${run.state})`).join(", ")}.`;
	if (count === 1 && runs[0]) return `${header}\n\n${notificationText(runs[0])}`;
	return [header, ...runs.map((run, index) => `[${index + 1}/${count}]\n${notificationText(run)}`)].join("\n\n");
}

/** The notification message for a batch of runs. */
export function notificationMessage(runs: RunRecord[], maxResultChars: number): NotificationMessage {
	return {
		customType: NOTIFICATION_TYPE,
		content: notificationContent(runs),
		display: true,
		details: { runs: runs.map((run) => runResult(run, maxResultChars)) },
	};
}

/**
 * The stderr lines for children that were still going when the parent session ended (print and
 * JSON modes), after they were stopped: id, type, description, how they ended.
 */
export function stoppedAtExit(runs: RunRecord[], reason = "quit"): string[] {
	const when = reason === "quit" ? "at exit" : `when the session ended (${reason})`;
	return runs.map((run) => `cadre: sub-agent ${run.id} (${run.type}: ${run.description}) ${run.state} ${when}\n`);
}

/** Whether pi runs single-shot (`pi -p`, `--mode json`): no notification may start a turn. */
export function singleShot(mode: string): boolean {
	return SINGLE_SHOT_MODES.has(mode);
}

/** Create the notifier of one parent session. */
export function createNotifier(host: NotifierHost): Notifier {
	/** Completed runs not sent yet, in the order they finished. */
	const held: RunRecord[] = [];
	/** A run is starting and its first request's messages are not collected yet. */
	let starting = false;
	/** A prompt is being prepared: the fallback that delivers when no run follows it, while it waits. */
	let preparing: NodeJS.Timeout | null = null;
	let closed = false;
	const prepared = () => {
		if (preparing) clearTimeout(preparing);
		preparing = null;
	};

	/** A session that is gone (a stale context throws) counts as busy and single-shot. */
	const idle = () => {
		try {
			return host.isIdle();
		} catch {
			return false;
		}
	};
	const mode = () => {
		try {
			return host.mode();
		} catch {
			return "print";
		}
	};

	/** Send what is held (minus what was fetched or sent meanwhile) as one message. */
	const flush = (options: SendOptions) => {
		const runs = held.splice(0).filter((run) => !run.fetched && !run.notified);
		if (runs.length === 0) return;
		for (const run of runs) run.notified = true;
		host.send(notificationMessage(runs, host.maxResultChars()), options);
	};

	/** Idle or settling: start a turn with what is held, or, single-shot, leave it for the next prompt. */
	const deliverNow = () => {
		if (singleShot(mode())) return flush({ deliverAs: "nextTurn" });
		starting = held.some((run) => !run.fetched && !run.notified);
		flush({ triggerTurn: true, deliverAs: "followUp" });
	};

	return {
		completed(run) {
			if (closed || run.fetched || run.notified || held.includes(run)) return;
			held.push(run);
			if (!starting && !preparing && idle()) deliverNow();
		},
		promptPreparing() {
			prepared();
			preparing = setTimeout(() => {
				preparing = null;
				if (!closed && !starting && idle()) deliverNow();
			}, host.preparingMs ?? PREPARING_MS);
			preparing.unref?.();
		},
		runStarting() {
			prepared();
			starting = true;
		},
		turnStarted() {
			if (!starting) return;
			starting = false;
			if (!closed) flush({ triggerTurn: true, deliverAs: "steer" });
		},
		settled() {
			prepared();
			starting = false;
			if (!closed) deliverNow();
		},
		close() {
			prepared();
			closed = true;
			held.length = 0;
		},
	};
}
