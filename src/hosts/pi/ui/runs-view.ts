/**
 * `/subagents` as a navigable view (issue 11 item 4, ADR 0082): the runs of this session, live, in
 * padded columns (running time and queued time apart); ↑/↓ select, Enter opens the live
 * conversation viewer, `x` stops the selected run (after a confirmation), `e` shows the explain
 * table of its type, Esc closes. Opened by the command without arguments or by the shortcut, in
 * pi's TUI only. The list lines are a pure function; {@link SubagentsScreen} is the pi-tui component.
 */
import type { Component, Focusable, KeybindingsManager, TUI } from "@earendil-works/pi-tui";
import { matchesKey } from "@earendil-works/pi-tui";
import type { RunRecord } from "../../../runtime/runs.ts";
import { ConversationViewer, type ViewerHost } from "./conversation-viewer.ts";
import type { LiveFeed } from "./live-feed.ts";
import { formatDuration, formatTokens, isEnded, type RunView, stateIcon, viewOfRecord } from "./run-view.ts";
import { fit, fitAll, pad, type Style, widthOf, wrapped } from "./text.ts";

/** One column of the list: its title, its cell, and whether it may be left out when narrow. */
interface Column {
	title: string;
	cell(view: RunView, style: Style): string;
	optional: boolean;
	/** The column that takes what width is left (the description). */
	flexible?: boolean;
}

const COLUMNS: Column[] = [
	{ title: "", cell: (view, style) => stateIcon(view.state, style), optional: false },
	{ title: "ID", cell: (view) => view.id, optional: false },
	{ title: "STATE", cell: (view) => view.state, optional: true },
	{ title: "TYPE", cell: (view) => view.type, optional: true },
	{ title: "DESCRIPTION", cell: (view) => view.description, optional: false, flexible: true },
	{ title: "RUNNING", cell: (view) => (view.runningMs === null ? "-" : formatDuration(view.runningMs)), optional: true },
	{ title: "QUEUED", cell: (view) => (view.queuedMs >= 100 ? formatDuration(view.queuedMs) : "-"), optional: true },
	{ title: "TURNS", cell: (view) => (view.maxTurns === null ? String(view.turns) : `${view.turns}/${view.maxTurns}`), optional: true },
	{ title: "TOOLS", cell: (view) => String(view.toolUses), optional: true },
	{ title: "TOKENS", cell: (view) => formatTokens(view.tokens), optional: true },
];

/** The columns that fit `width`: optional ones are left out from the right until the description has room. */
function fittingColumns(views: readonly RunView[], width: number, style: Style): { columns: Column[]; widths: number[] } {
	// Each column's natural width, measured once (the loop below only leaves columns out).
	const naturalWidths = new Map(COLUMNS.map((column) => [column, Math.max(widthOf(column.title), ...views.map((view) => widthOf(column.cell(view, style))))]));
	const natural = (column: Column) => naturalWidths.get(column) as number;
	const longestDescription = Math.max(11, ...views.map((view) => widthOf(view.description)));
	let columns = [...COLUMNS];
	// Optional columns give way until the description has room for what most descriptions say.
	const minDescription = Math.min(30, longestDescription);
	for (;;) {
		const fixed = columns.filter((column) => !column.flexible).reduce((sum, column) => sum + natural(column) + 2, 2);
		const optional = [...columns].reverse().find((column) => column.optional);
		if (fixed + minDescription <= width || !optional) {
			const description = Math.max(1, Math.min(width - fixed, longestDescription));
			return { columns, widths: columns.map((column) => (column.flexible ? description : natural(column))) };
		}
		columns = columns.filter((column) => column !== optional);
	}
}

/** The list: a title, the column heads, one row per run (the selected one marked), the keys. */
export function runsViewLines(views: readonly RunView[], selected: number, width: number, style: Style, note = ""): string[] {
	const lines = [fit(`${style.fg("accent", style.bold("cadre"))} ${style.fg("muted", "sub-agent runs of this session")}`, width)];
	if (views.length === 0) {
		lines.push(fit(style.fg("muted", "No sub-agent runs in this session yet."), width));
	} else {
		const { columns, widths } = fittingColumns(views, width, style);
		const row = (cells: string[]) => cells.map((cell, index) => pad(cell, widths[index] ?? 0)).join("  ");
		lines.push(fit(style.fg("muted", `  ${row(columns.map((column) => column.title))}`), width));
		views.forEach((view, index) => {
			const text = row(columns.map((column) => column.cell(view, style)));
			lines.push(fit(index === selected ? `${style.fg("accent", "›")} ${style.bold(text)}` : `  ${text}`, width));
		});
	}
	if (note) lines.push(...wrapped(note, width).map((line) => style.fg("warning", line)));
	lines.push(fit(style.fg("dim", "↑↓ select · enter open · x stop · e explain · esc close"), width));
	return lines;
}

/** What the view needs from the extension. */
export interface RunsViewHost extends ViewerHost {
	runs(): readonly RunRecord[];
}

/** The whole interaction: the list, and the viewer of one run on top of it. */
export class SubagentsScreen implements Component, Focusable {
	focused = false;
	private selected = 0;
	private viewer: ConversationViewer | null = null;
	private confirming: string | null = null;
	private note = "";
	private explainText: string[] | null = null;
	private readonly unsubscribe: () => void;
	private readonly host: RunsViewHost;
	private readonly tui: TUI;
	private readonly theme: Style;
	private readonly keys: KeybindingsManager;
	private readonly done: () => void;

	constructor(options: { host: RunsViewHost; tui: TUI; theme: Style; keybindings: KeybindingsManager; feed: LiveFeed; done: () => void }) {
		this.host = options.host;
		this.tui = options.tui;
		this.theme = options.theme;
		this.keys = options.keybindings;
		this.done = options.done;
		this.unsubscribe = options.feed.subscribe(() => {
			this.viewer?.refresh();
			this.tui.requestRender();
		});
	}

	private views(): RunView[] {
		const now = Date.now();
		return this.host.runs().map((run) => viewOfRecord(run, now));
	}

	private height(): number {
		return Math.max(8, (this.tui.terminal?.rows ?? 24) - 6);
	}

	render(width: number): string[] {
		if (this.viewer) {
			this.viewer.focused = this.focused;
			return fitAll(this.viewer.lines(width, this.height()), width);
		}
		if (this.explainText) return fitAll([...this.explainText.flatMap((line) => wrapped(line, width)).slice(0, this.height() - 1), this.theme.fg("dim", "esc back")], width);
		const views = this.views();
		this.selected = Math.min(this.selected, Math.max(0, views.length - 1));
		const note = this.confirming ? `Stop ${this.confirming}? y stops it, any other key keeps it running.` : this.note;
		return runsViewLines(views, this.selected, width, this.theme, note).slice(0, this.height());
	}

	private open(id: string): void {
		const run = this.host.get(id);
		if (!run) return;
		try {
			this.viewer = new ConversationViewer({ host: this.host, runId: id, theme: this.theme, keybindings: this.keys, requestRender: () => this.tui.requestRender() });
		} catch (error) {
			this.note = `Cannot open ${id}: ${error instanceof Error ? error.message : String(error)}`;
		}
	}

	handleInput(data: string): void {
		if (this.viewer) {
			if (this.viewer.handleInput(data) === "close") this.viewer = null;
			this.tui.requestRender();
			return;
		}
		if (this.explainText) {
			if (this.keys.matches(data, "tui.select.cancel") || matchesKey(data, "q")) this.explainText = null;
			this.tui.requestRender();
			return;
		}
		const views = this.views();
		const current = views[this.selected];
		if (this.confirming) {
			const id = this.confirming;
			this.confirming = null;
			if (matchesKey(data, "y")) {
				this.note = `Stopping ${id}…`;
				void this.host.stop(id).then(
					(run) => this.settle(run ? `${run.id} is ${run.state}.` : `No run ${id}.`),
					(error: unknown) => this.settle(error instanceof Error ? error.message : String(error)),
				);
			} else this.note = `${id} keeps running.`;
		} else if (this.keys.matches(data, "tui.select.up")) this.selected = Math.max(0, this.selected - 1);
		else if (this.keys.matches(data, "tui.select.down")) this.selected = Math.min(views.length - 1, this.selected + 1);
		else if (this.keys.matches(data, "tui.select.confirm")) {
			if (current) this.open(current.id);
		} else if (matchesKey(data, "x")) {
			if (current && !isEnded(current.state)) this.confirming = current.id;
			else if (current) this.note = `${current.id} is ${current.state} already.`;
		} else if (matchesKey(data, "e")) {
			const run = current ? this.host.get(current.id) : undefined;
			if (run) this.explainText = this.host.explain(run.type).split("\n");
		} else if (this.keys.matches(data, "tui.select.cancel") || matchesKey(data, "q")) {
			this.dispose();
			this.done();
			return;
		} else return;
		this.tui.requestRender();
	}

	private settle(note: string): void {
		this.note = note;
		this.tui.requestRender();
	}

	invalidate(): void {}

	dispose(): void {
		this.unsubscribe();
		this.viewer = null;
	}
}
