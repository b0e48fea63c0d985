/**
 * The live conversation viewer of one child (issue 11 item 4, ADR 0082): its messages, tool calls
 * with their arguments, tool results folded to one line (`f` unfolds them); it follows new
 * messages until you scroll back (↑/↓, PgUp/PgDn; End follows again) and stays open after the run
 * ends. Keys: `s` opens a composer that steers the child, `x` stops it after a confirmation, `e`
 * shows the run's own resolution, `w` its worktree report, Esc goes back. The messages come
 * from the live child session, or from the transcript once the run has ended.
 */
import type { Focusable, KeybindingsManager } from "@earendil-works/pi-tui";
import { Input, matchesKey } from "@earendil-works/pi-tui";
import type { ChildMessage } from "../../../runtime/pi/conversation.ts";
import type { RunRecord } from "../../../runtime/runs.ts";
import { type LegendItem, legendText } from "./legend.ts";
import { runExplainLines } from "./run-explain.ts";
import { blockedText, formatDuration, isEnded, sandboxText, stateIcon, statsLine, viewOfRecord } from "./run-view.ts";
import { lastTop, moved, positionText, type ScrollMove, scrollMove } from "./scroll.ts";
import { TextPage } from "./text-page.ts";
import { fit, shown, type Style, wrapped } from "./text.ts";

/** What the viewer needs from the extension. */
export interface ViewerHost {
	get(id: string): RunRecord | undefined;
	/** The run's messages: the live child's, else its transcript's. */
	messages(run: RunRecord): ChildMessage[];
	steer(id: string, message: string): Promise<void>;
	stop(id: string): Promise<RunRecord | undefined>;
	/** The worktree report of a run (its isolation report and the worktree's state). */
	worktreeReport(run: RunRecord): Promise<string>;
}

/** Arguments on one line, as JSON. */
function argumentText(args: unknown): string {
	try {
		return JSON.stringify(args) ?? "";
	} catch {
		return String(args);
	}
}

/** The conversation as lines: tool results folded to one line unless `unfold`. */
export function conversationLines(messages: readonly ChildMessage[], width: number, style: Style, unfold = false): string[] {
	const lines: string[] = [];
	for (const message of messages) {
		switch (message.role) {
			case "user":
				lines.push(...wrapped(message.text, width, "› ", Number.POSITIVE_INFINITY, "  ").map((line) => style.fg("accent", line)));
				break;
			case "assistant":
				if (message.thinking.trim()) lines.push(fit(style.fg("dim", `(thinking: ${message.thinking.replace(/\s+/g, " ").trim()})`), width));
				if (message.text.trim()) lines.push(...wrapped(message.text, width));
				for (const call of message.toolCalls) {
					lines.push(...wrapped(`→ ${call.name} ${argumentText(call.args)}`, width, "", unfold ? Number.POSITIVE_INFINITY : 2).map((line) => style.fg("toolTitle", line)));
				}
				if (message.stopReason === "error" && message.errorMessage) lines.push(...wrapped(message.errorMessage, width, "✗ ", Number.POSITIVE_INFINITY, "  ").map((line) => style.fg("error", line)));
				break;
			case "toolResult": {
				const all = message.text.split("\n");
				const first = all.find((line) => line.trim() !== "") ?? "";
				const tone = message.isError ? "error" : "muted";
				if (unfold) lines.push(...wrapped(message.text, width, "  ").map((line) => style.fg(tone, line)));
				else lines.push(fit(style.fg(tone, `  ← ${shown(message.toolName)}: ${all.length} line${all.length === 1 ? "" : "s"} · ${shown(first.trim())}`), width));
				break;
			}
			case "custom":
				lines.push(...wrapped(`[${message.customType}] ${message.text}`, width, "", 3).map((line) => style.fg("muted", line)));
				break;
		}
	}
	return lines;
}

/** The viewer's first lines: the run's state, id, type, description, then its stats (a queued run: how long it waited); its trace id when telemetry traced it (ADR 0145). */
export function viewerHeader(run: RunRecord, width: number, style: Style): string[] {
	const view = viewOfRecord(run);
	const detail =
		view.state === "queued"
			? `queued ${formatDuration(view.queuedMs)} · waiting for a free slot (settings maxConcurrent)`
			: `${view.state} · ${statsLine(view)}${view.activity && view.activity !== view.state ? ` · ${view.activity}` : ""}`;
	const sandbox = sandboxText(view);
	const blocked = blockedText(view);
	return [
		fit(`${stateIcon(view.state, style)} ${style.bold(view.id)} ${view.type} · ${view.description}`, width),
		fit(style.fg("dim", `  ${detail}${sandbox ? ` · ${sandbox}` : ""}`), width),
		...(blocked ? [fit(style.fg("warning", `  ${blocked}`), width)] : []),
		...(run.traceId ? [fit(style.fg("dim", `  trace ${run.traceId}`), width)] : []),
	];
}

/** A run that has no messages yet (queued, starting): its task, so the viewer is never empty. */
export function taskLines(run: RunRecord, width: number, style: Style): string[] {
	const waiting = run.state === "queued" ? ["", ...wrapped("It starts when a slot is free; a steering message is held until then and sent with its first turn.", width)] : [];
	return [fit(style.fg("muted", "task"), width), ...wrapped(run.prompt, width, "› ", Number.POSITIVE_INFINITY, "  ").map((line) => style.fg("accent", line)), ...waiting];
}

type Mode = "conversation" | "steer" | "confirm-stop" | "page";

/** The keys of the conversation, shortened before they are cut (`esc back` always shows). */
const CONVERSATION_LEGEND: LegendItem[] = [
	{ keys: "↑↓", label: "scroll", short: "" },
	{ keys: "end", label: "follow", short: "" },
	{ keys: "s", label: "steer", keep: true },
	{ keys: "x", label: "stop", keep: true },
	{ keys: "e", label: "explain", short: "expl." },
	{ keys: "w", label: "worktree", short: "wt" },
	{ keys: "f", label: "fold/unfold", short: "fold" },
	{ keys: "esc", label: "back", keep: true },
];

/** What steering does now: a queued run holds the message until it starts. */
function steerLegend(state: string): LegendItem[] {
	return [
		state === "queued"
			? { keys: "enter", label: "sends it (held until the run starts)", short: "sends (held)", keep: true }
			: { keys: "enter", label: "sends the message to the child (after its current tool call)", short: "sends", keep: true },
		{ keys: "esc", label: "cancels", keep: true },
	];
}

const CONFIRM_LEGEND: LegendItem[] = [
	{ keys: "y", label: "stops the child", short: "stops", keep: true },
	{ keys: "any other key", label: "keeps it running", short: "keeps it", keep: true },
];

/** The viewer of one run. Not a pi-tui component itself: {@link SubagentsScreen} hosts it. */
export class ConversationViewer implements Focusable {
	focused = false;
	private mode: Mode = "conversation";
	/** Follow new lines; when false, {@link top} holds the first shown line while output arrives. */
	private follow = true;
	private top = 0;
	private room = 1;
	private total = 0;
	private unfold = false;
	private note = "";
	/** The run's state when the note was written: a note about a live run goes when it ends. */
	private noteState = "";
	private page: TextPage | null = null;
	private messages: ChildMessage[] = [];
	private transcriptOf: string | null = null;
	private cache: { key: { messages: ChildMessage[]; width: number; unfold: boolean }; lines: string[] } | null = null;
	private readonly input = new Input({ prompt: "steer › " });
	private readonly host: ViewerHost;
	private readonly runId: string;
	private readonly theme: Style;
	private readonly keys: KeybindingsManager;
	private readonly requestRender: () => void;

	constructor(options: { host: ViewerHost; runId: string; theme: Style; keybindings: KeybindingsManager; requestRender: () => void }) {
		this.host = options.host;
		this.runId = options.runId;
		this.theme = options.theme;
		this.keys = options.keybindings;
		this.requestRender = options.requestRender;
		this.input.onSubmit = (value) => this.send(value);
		this.input.onEscape = () => this.setMode("conversation");
		this.refresh();
	}

	/** Re-read the messages (the live child's at every update; a transcript once). */
	refresh(): void {
		const run = this.host.get(this.runId);
		if (!run) return;
		const ended = isEnded(run.state);
		if (ended && this.transcriptOf === run.transcript && this.messages.length > 0) return;
		const messages = this.host.messages(run);
		// Messages are appended whole: the same count is the same conversation (keeps the line cache).
		if (messages.length !== this.messages.length || ended) this.messages = messages;
		this.transcriptOf = ended ? run.transcript : null;
	}

	/** The conversation's lines, computed again only when the messages, the width or folding changed. */
	private conversation(width: number): string[] {
		const key = { messages: this.messages, width, unfold: this.unfold };
		const cached = this.cache;
		if (cached && cached.key.messages === key.messages && cached.key.width === width && cached.key.unfold === key.unfold) return cached.lines;
		const lines = conversationLines(this.messages, width, this.theme, this.unfold);
		this.cache = { key, lines };
		return lines;
	}

	/** The note, unless it spoke of a live run that has ended since. */
	private currentNote(run: RunRecord): string {
		if (this.note && isEnded(run.state) && !isEnded(this.noteState)) this.note = "";
		return this.note;
	}

	lines(width: number, height: number): string[] {
		const run = this.host.get(this.runId);
		if (!run) return [fit(`No run ${this.runId}.`, width)];
		const header = viewerHeader(run, width, this.theme);
		if (this.mode === "page" && this.page) return [...header, ...this.page.lines(width, Math.max(3, height - header.length), this.theme)];
		const footer: string[] = [];
		const note = this.currentNote(run);
		if (note) footer.push(...wrapped(note, width).map((line) => this.theme.fg("warning", line)));
		if (this.mode === "steer") {
			this.input.focused = this.focused;
			footer.push(...this.input.render(width).map((line) => fit(line, width)));
		}
		if (this.mode === "confirm-stop") footer.push(fit(this.theme.fg("warning", `Stop ${this.runId}?`), width));
		const legend = this.mode === "steer" ? steerLegend(run.state) : this.mode === "confirm-stop" ? CONFIRM_LEGEND : CONVERSATION_LEGEND;
		footer.push(fit(this.theme.fg("dim", legendText(legend, width)), width));
		const body = this.messages.length === 0 ? taskLines(run, width, this.theme) : this.conversation(width);
		this.room = Math.max(1, height - header.length - footer.length - 1);
		this.total = body.length;
		const last = lastTop(this.room, body.length);
		this.top = this.follow ? last : Math.min(this.top, last);
		if (this.top >= last) this.follow = true;
		const shownBody = body.slice(this.top, this.top + this.room);
		const below = body.length - this.top - shownBody.length;
		const where = positionText(this.top, shownBody.length, body.length);
		const more = below > 0 ? `── ${below} more below · ${where} · end follows ──` : `── ${where} ──`;
		return [...header, ...shownBody, fit(this.theme.fg("muted", more), width), ...footer];
	}

	private setMode(mode: Mode): void {
		this.mode = mode;
		if (mode !== "steer") this.input.setValue("");
		this.requestRender();
	}

	private send(value: string): void {
		const message = value.trim();
		this.setMode("conversation");
		if (!message) return;
		const queued = this.host.get(this.runId)?.state === "queued";
		this.setNote(`Steering ${this.runId}…`);
		this.host.steer(this.runId, message).then(
			() => this.settle(queued ? `Held for ${this.runId}: it is sent when the run starts.` : `Sent to ${this.runId}: it arrives after the current tool call.`),
			(error: unknown) => this.settle(error instanceof Error ? error.message : String(error)),
		);
	}

	private setNote(note: string): void {
		this.note = note;
		this.noteState = this.host.get(this.runId)?.state ?? "";
	}

	private settle(note: string): void {
		this.setNote(note);
		this.requestRender();
	}

	private scroll(move: ScrollMove): void {
		const last = lastTop(this.room, this.total);
		const from = this.follow ? last : this.top;
		this.top = moved(from, move, last + 1, this.room);
		this.follow = this.top >= last;
	}

	private showPage(body: (width: number) => string[]): void {
		this.page = new TextPage(body);
		this.mode = "page";
	}

	private showReport(run: RunRecord): void {
		let text = ["…"];
		this.showPage((width) => text.flatMap((line) => wrapped(line, width)));
		void this.host.worktreeReport(run).then(
			(value) => {
				text = value.split("\n");
				this.requestRender();
			},
			(error: unknown) => {
				text = [error instanceof Error ? error.message : String(error)];
				this.requestRender();
			},
		);
	}

	/** Handle a key; "close" when the viewer should go back to the list. */
	handleInput(data: string): "close" | undefined {
		const run = this.host.get(this.runId);
		if (this.mode === "steer") {
			this.input.handleInput(data);
			return undefined;
		}
		if (this.mode === "confirm-stop") {
			this.mode = "conversation";
			if (matchesKey(data, "y")) {
				this.setNote(`Stopping ${this.runId}…`);
				this.host.stop(this.runId).then(
					(stopped) => this.settle(stopped ? `${stopped.id} is ${stopped.state}.` : `No run ${this.runId}.`),
					(error: unknown) => this.settle(error instanceof Error ? error.message : String(error)),
				);
			} else this.setNote(`${this.runId} keeps running.`);
			return undefined;
		}
		// A note answers the last key; the next key clears it.
		this.note = "";
		const cancel = this.keys.matches(data, "tui.select.cancel") || matchesKey(data, "q");
		const move = scrollMove(data, this.keys);
		if (this.mode === "page") {
			if (cancel) {
				this.mode = "conversation";
				this.page = null;
			} else if (move) this.page?.scroll(move);
			return undefined;
		}
		if (cancel) return "close";
		if (move) this.scroll(move);
		else if (matchesKey(data, "f")) this.unfold = !this.unfold;
		else if (matchesKey(data, "s")) {
			if (run && isEnded(run.state)) this.setNote(`${this.runId} is ${run.state}: steer reaches only queued or running runs (resume it instead).`);
			else this.setMode("steer");
		} else if (matchesKey(data, "x")) {
			if (run && isEnded(run.state)) this.setNote(`${this.runId} is ${run.state} already.`);
			else this.mode = "confirm-stop";
		} else if (matchesKey(data, "e")) {
			if (run) this.showPage((width) => runExplainLines(run, width, this.theme));
		} else if (matchesKey(data, "w")) {
			if (run) this.showReport(run);
		}
		return undefined;
	}
}
