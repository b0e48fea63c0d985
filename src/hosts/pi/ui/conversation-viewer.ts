/**
 * The live conversation viewer of one child (issue 11 item 4, ADR 0082): its messages, tool calls
 * with their arguments, tool results folded to one line (`f` unfolds them); it follows new
 * messages until you scroll back (↑/↓, PgUp/PgDn; End follows again) and stays open after the run
 * ends. Keys: `s` opens a composer that steers the child, `x` stops it after a confirmation, `e`
 * shows the explain table of its type, `w` its worktree report, Esc goes back. The messages come
 * from the live child session, or from the transcript once the run has ended.
 */
import type { Focusable, KeybindingsManager } from "@earendil-works/pi-tui";
import { Input, matchesKey } from "@earendil-works/pi-tui";
import type { ChildMessage } from "../../../runtime/pi-sdk.ts";
import type { RunRecord } from "../../../runtime/runs.ts";
import { isEnded, stateIcon, statsLine, viewOfRecord } from "./run-view.ts";
import { fit, shown, type Style, wrapped } from "./text.ts";

/** What the viewer needs from the extension. */
export interface ViewerHost {
	get(id: string): RunRecord | undefined;
	/** The run's messages: the live child's, else its transcript's. */
	messages(run: RunRecord): ChildMessage[];
	steer(id: string, message: string): Promise<void>;
	stop(id: string): Promise<RunRecord | undefined>;
	/** The explain table of a type (what a spawn of it would get, and why). */
	explain(type: string): string;
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

/** The viewer's first lines: the run's state, id, type, description and stats; its trace id when telemetry traced it (ADR 0145). */
export function viewerHeader(run: RunRecord, width: number, style: Style): string[] {
	const view = viewOfRecord(run);
	return [
		fit(`${stateIcon(view.state, style)} ${style.bold(view.id)} ${view.type} · ${view.description}`, width),
		fit(style.fg("dim", `  ${view.state} · ${statsLine(view)}${view.activity ? ` · ${view.activity}` : ""}`), width),
		...(run.traceId ? [fit(style.fg("dim", `  trace ${run.traceId}`), width)] : []),
	];
}

type Mode = "conversation" | "steer" | "confirm-stop" | "explain" | "worktree";

/** The keys line of each mode. */
const KEYS: Record<Mode, string> = {
	conversation: "↑↓ scroll · end follow · s steer · x stop · e explain · w worktree · f fold/unfold · esc back",
	steer: "enter sends the message to the child (after its current tool call) · esc cancels",
	"confirm-stop": "y stops the child · any other key keeps it running",
	explain: "↑↓ scroll · esc back",
	worktree: "↑↓ scroll · esc back",
};

/** The viewer of one run. Not a pi-tui component itself: {@link SubagentsScreen} hosts it. */
export class ConversationViewer implements Focusable {
	focused = false;
	private mode: Mode = "conversation";
	private follow = true;
	/** Lines scrolled back from the end. */
	private back = 0;
	private unfold = false;
	private note = "";
	private page: string[] = [];
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

	lines(width: number, height: number): string[] {
		const run = this.host.get(this.runId);
		if (!run) return [fit(`No run ${this.runId}.`, width)];
		const header = viewerHeader(run, width, this.theme);
		const footer: string[] = [];
		if (this.note) footer.push(...wrapped(this.note, width).map((line) => this.theme.fg("warning", line)));
		if (this.mode === "steer") {
			this.input.focused = this.focused;
			footer.push(...this.input.render(width).map((line) => fit(line, width)));
		}
		if (this.mode === "confirm-stop") footer.push(fit(this.theme.fg("warning", `Stop ${this.runId}?`), width));
		footer.push(fit(this.theme.fg("dim", KEYS[this.mode]), width));
		const body =
			this.mode === "explain" || this.mode === "worktree"
				? this.page.flatMap((line) => wrapped(line, width))
				: this.conversation(width);
		const room = Math.max(1, height - header.length - footer.length - 1);
		const maxBack = Math.max(0, body.length - room);
		if (this.follow) this.back = 0;
		this.back = Math.min(this.back, maxBack);
		const end = body.length - this.back;
		const shownBody = body.slice(Math.max(0, end - room), end);
		const more = this.back > 0 ? this.theme.fg("muted", `── ${this.back} more below (end follows) ──`) : this.theme.fg("muted", "─".repeat(Math.min(width, 40)));
		return [...header, ...shownBody, fit(more, width), ...footer];
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
		this.note = `Steering ${this.runId}…`;
		this.host.steer(this.runId, message).then(
			() => this.settle(`Sent to ${this.runId}: it arrives after the current tool call.`),
			(error: unknown) => this.settle(error instanceof Error ? error.message : String(error)),
		);
	}

	private settle(note: string): void {
		this.note = note;
		this.requestRender();
	}

	private scroll(lines: number): void {
		this.back = Math.max(0, this.back + lines);
		this.follow = this.back === 0;
	}

	private showPage(mode: "explain" | "worktree", text: Promise<string> | string): void {
		this.page = ["…"];
		this.back = 0;
		this.follow = false;
		this.mode = mode;
		void Promise.resolve(text).then(
			(value) => {
				this.page = value.split("\n");
				this.requestRender();
			},
			(error: unknown) => {
				this.page = [error instanceof Error ? error.message : String(error)];
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
				this.note = `Stopping ${this.runId}…`;
				this.host.stop(this.runId).then(
					(stopped) => this.settle(stopped ? `${stopped.id} is ${stopped.state}.` : `No run ${this.runId}.`),
					(error: unknown) => this.settle(error instanceof Error ? error.message : String(error)),
				);
			} else this.note = `${this.runId} keeps running.`;
			return undefined;
		}
		// A note answers the last key; the next key clears it.
		this.note = "";
		if (this.keys.matches(data, "tui.select.cancel") || matchesKey(data, "q")) {
			if (this.mode === "conversation") return "close";
			this.mode = "conversation";
			this.follow = true;
			return undefined;
		}
		if (this.keys.matches(data, "tui.select.up")) this.scroll(1);
		else if (this.keys.matches(data, "tui.select.down")) this.scroll(-1);
		else if (this.keys.matches(data, "tui.select.pageUp")) this.scroll(10);
		else if (this.keys.matches(data, "tui.select.pageDown")) this.scroll(-10);
		else if (matchesKey(data, "end")) this.scroll(-this.back);
		else if (this.mode !== "conversation") return undefined;
		else if (matchesKey(data, "f")) this.unfold = !this.unfold;
		else if (matchesKey(data, "s")) {
			if (run && isEnded(run.state)) this.note = `${this.runId} is ${run.state}: steer reaches only queued or running runs (resume it instead).`;
			else {
				this.note = "";
				this.setMode("steer");
			}
		} else if (matchesKey(data, "x")) {
			if (run && isEnded(run.state)) this.note = `${this.runId} is ${run.state} already.`;
			else this.mode = "confirm-stop";
		} else if (matchesKey(data, "e")) {
			if (run) this.showPage("explain", this.host.explain(run.type));
		} else if (matchesKey(data, "w")) {
			if (run) this.showPage("worktree", this.host.worktreeReport(run));
		}
		return undefined;
	}
}
