/**
 * `/subagents` as a navigable view (issue 11 item 4, ADR 0082): the runs of this session, live, in
 * padded columns (running time and queued time apart); ↑/↓ select, Enter opens the live
 * conversation viewer, `x` stops the selected run (after a confirmation), `e` shows the explain
 * table of its type, `m` runs the merge queue (its order shown first, merged on `y`, then its
 * report), Esc closes. Opened by the command without arguments or by the shortcut, in
 * pi's TUI only. The list lines are a pure function; {@link SubagentsScreen} is the pi-tui component.
 */
import type { Component, Focusable, KeybindingsManager, TUI } from "@earendil-works/pi-tui";
import { matchesKey } from "@earendil-works/pi-tui";
import type { RunRecord } from "../../../runtime/runs.ts";
import { ConversationViewer, type ViewerHost } from "./conversation-viewer.ts";
import type { LiveFeed } from "./live-feed.ts";
import { formatDuration, formatTokens, isEnded, type RunView, stateIcon, viewOfRecord } from "./run-view.ts";
import { type LegendItem, legendText } from "./legend.ts";
import { runExplainLines } from "./run-explain.ts";
import { keepInView, moved, positionText, scrollMove } from "./scroll.ts";
import { treeIndent } from "../../../runtime/run-tree.ts";
import { PAGE_LEGEND, TextPage } from "./text-page.ts";
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
	// Nested runs indented under their parent (issue 21; the host lists runs in tree order).
	{ title: "ID", cell: (view) => `${treeIndent(view.depth)}${view.id}`, optional: false },
	{ title: "STATE", cell: (view) => view.state, optional: true },
	{ title: "TYPE", cell: (view) => view.type, optional: true },
	{ title: "DESCRIPTION", cell: (view) => view.description, optional: false, flexible: true },
	{ title: "RUNNING", cell: (view) => (view.runningMs === null ? "-" : formatDuration(view.runningMs)), optional: true },
	{ title: "QUEUED", cell: (view) => (view.queuedMs >= 100 ? formatDuration(view.queuedMs) : "-"), optional: true },
	{ title: "TURNS", cell: (view) => (view.maxTurns === null ? String(view.turns) : `${view.turns}/${view.maxTurns}`), optional: true },
	{ title: "TOOLS", cell: (view) => String(view.toolUses), optional: true },
	{ title: "TOKENS", cell: (view) => formatTokens(view.tokens), optional: true },
	{ title: "BUDGET", cell: (view) => view.budget ?? "-", optional: true },
];

/** The columns that fit `width`: optional ones are left out from the right until the description has room. */
function fittingColumns(views: readonly RunView[], width: number, style: Style): { columns: Column[]; widths: number[] } {
	// Each column's natural width, measured once (the loop below only leaves columns out).
	const naturalWidths = new Map(COLUMNS.map((column) => [column, Math.max(widthOf(column.title), ...views.map((view) => widthOf(column.cell(view, style))))]));
	const natural = (column: Column) => naturalWidths.get(column) as number;
	const longestDescription = Math.max(11, ...views.map((view) => widthOf(view.description)));
	// The budget column only when a run has a budget.
	let columns = views.some((view) => view.budget !== null) ? [...COLUMNS] : COLUMNS.filter((column) => column.title !== "BUDGET");
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

/** The list's keys, shortened before they are cut. */
const LIST_LEGEND: LegendItem[] = [
	{ keys: "↑↓", label: "select", short: "" },
	{ keys: "enter", label: "open", keep: true },
	{ keys: "x", label: "stop", keep: true },
	{ keys: "e", label: "explain", short: "expl." },
	{ keys: "m", label: "merge queue", short: "merge" },
	{ keys: "home end", label: "first/last", short: "" },
	{ keys: "esc", label: "close", keep: true },
];

/** Which rows of the list show: from `top`, at most `rows` (all by default). */
export interface ListWindow {
	top: number;
	rows: number;
}

/**
 * The list: a title (with the position when not every run shows), the column heads, the rows of
 * `window` (the selected one marked), the note, the keys. The note and the keys always show.
 */
export function runsViewLines(views: readonly RunView[], selected: number, width: number, style: Style, note = "", window: ListWindow = { top: 0, rows: views.length }): string[] {
	const partial = views.length > window.rows;
	const position = partial ? ` · ${positionText(window.top, Math.min(window.rows, views.length - window.top), views.length)}` : "";
	const lines = [fit(`${style.fg("accent", style.bold("cadre"))} ${style.fg("muted", `sub-agent runs of this session${position}`)}`, width)];
	if (views.length === 0) {
		lines.push(fit(style.fg("muted", "No sub-agent runs in this session yet."), width));
	} else {
		// Column widths from every run, so the columns do not move while scrolling.
		const { columns, widths } = fittingColumns(views, width, style);
		const row = (cells: string[]) => cells.map((cell, index) => pad(cell, widths[index] ?? 0)).join("  ");
		lines.push(fit(style.fg("muted", `  ${row(columns.map((column) => column.title))}`), width));
		views.slice(window.top, window.top + window.rows).forEach((view, offset) => {
			const text = row(columns.map((column) => column.cell(view, style)));
			lines.push(fit(window.top + offset === selected ? `${style.fg("accent", "›")} ${style.bold(text)}` : `  ${text}`, width));
		});
	}
	if (note) lines.push(...wrapped(note, width).map((line) => style.fg("warning", line)));
	lines.push(fit(style.fg("dim", legendText(LIST_LEGEND, width)), width));
	return lines;
}

/** Where the list opens: the first running run, else the first queued one, else the newest. */
export function initialSelection(views: readonly RunView[]): number {
	const running = views.findIndex((view) => view.state === "running");
	if (running >= 0) return running;
	const queued = views.findIndex((view) => view.state === "queued");
	return queued >= 0 ? queued : Math.max(0, views.length - 1);
}

/** What the view needs from the extension. */
export interface RunsViewHost extends ViewerHost {
	runs(): readonly RunRecord[];
	/**
	 * The merge queue (`cadre worktrees apply --all`, ADR 0115): with `dryRun` what it would merge,
	 * else its report; `branches` counts the branches queued. Absent: the view has no `m`.
	 */
	mergeQueue?(dryRun: boolean): Promise<{ text: string; branches: number }>;
}

/** The keys of the merge queue's confirmation page. */
const QUEUE_CONFIRM_LEGEND: LegendItem[] = [
	{ keys: "↑↓", label: "scroll", short: "" },
	{ keys: "y", label: "merge", keep: true },
	{ keys: "any other key", label: "cancel", short: "cancel", keep: true },
];

/** The text as page lines, each wrapped to the width. */
function textLines(text: string): (width: number) => string[] {
	return (width) => text.split("\n").flatMap((line) => wrapped(line, width));
}

/**
 * The rows cadre's views may use of the terminal's: pi's footer (three lines with the status), its
 * working line and a little chat stay visible. pi shrinks every region of a layout that is too tall
 * (each loses its last lines — here the keys), so the view stays under what is left; the widget and
 * the child list are hidden while it is open.
 */
export function viewHeight(terminalRows: number): number {
	return Math.max(4, terminalRows - 7);
}

/** The whole interaction: the list, and the viewer of one run on top of it. */
export class SubagentsScreen implements Component, Focusable {
	focused = false;
	/** PgUp/PgDn/Home/End are the view's, not pi's chat scrolling (fullscreen mode). */
	readonly capturesViewportInput = true;
	private selected: number | null = null;
	private top = 0;
	private rowsShown = 1;
	private viewer: ConversationViewer | null = null;
	private confirming: string | null = null;
	private note = "";
	private explainPage: TextPage | null = null;
	/** The merge queue's page: its order awaiting `y` (`confirm`), or its report. */
	private queuePage: { page: TextPage; confirm: boolean } | null = null;
	private readonly unsubscribe: () => void;
	private readonly host: RunsViewHost;
	private readonly tui: TUI;
	private readonly theme: Style;
	private readonly keys: KeybindingsManager;
	private readonly done: () => void;

	/** `runId`: open straight on this run's conversation (from the child list); Esc goes to the list. */
	constructor(options: { host: RunsViewHost; tui: TUI; theme: Style; keybindings: KeybindingsManager; feed: LiveFeed; done: () => void; runId?: string }) {
		this.host = options.host;
		this.tui = options.tui;
		this.theme = options.theme;
		this.keys = options.keybindings;
		this.done = options.done;
		if (options.runId) {
			const index = this.host.runs().findIndex((run) => run.id === options.runId);
			if (index >= 0) this.selected = index;
			this.open(options.runId);
		}
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
		return viewHeight(this.tui.terminal?.rows ?? 24);
	}

	render(width: number): string[] {
		const height = this.height();
		if (this.viewer) {
			this.viewer.focused = this.focused;
			return fitAll(this.viewer.lines(width, height), width);
		}
		if (this.explainPage) return fitAll(this.explainPage.lines(width, height, this.theme), width);
		if (this.queuePage) return fitAll(this.queuePage.page.lines(width, height, this.theme, this.queuePage.confirm ? QUEUE_CONFIRM_LEGEND : PAGE_LEGEND), width);
		const views = this.views();
		if (this.selected === null) this.selected = initialSelection(views);
		this.selected = Math.min(this.selected, Math.max(0, views.length - 1));
		const note = this.confirming ? `Stop ${this.confirming}? y stops it, any other key keeps it running.` : this.note;
		// The title, the column heads, the note and the keys always show; the rows get the rest.
		const noteLines = note ? wrapped(note, width).length : 0;
		this.rowsShown = Math.max(1, height - 3 - noteLines);
		this.top = keepInView(this.top, this.selected, this.rowsShown, views.length);
		const lines = runsViewLines(views, this.selected, width, this.theme, note, { top: this.top, rows: this.rowsShown });
		// Too short for the column heads too: they go before a row or the keys do.
		return lines.length > height && views.length > 0 ? [lines[0] as string, ...lines.slice(2)] : lines;
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
		if (this.explainPage) {
			const move = scrollMove(data, this.keys);
			if (move) this.explainPage.scroll(move);
			else if (this.keys.matches(data, "tui.select.cancel") || matchesKey(data, "q")) this.explainPage = null;
			this.tui.requestRender();
			return;
		}
		if (this.queuePage) {
			this.queueInput(data);
			this.tui.requestRender();
			return;
		}
		const views = this.views();
		const selected = this.selected ?? initialSelection(views);
		const current = views[selected];
		const move = this.confirming ? null : scrollMove(data, this.keys);
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
		} else if (move) this.selected = moved(selected, move, views.length, this.rowsShown);
		else if (this.keys.matches(data, "tui.select.confirm")) {
			if (current) this.open(current.id);
		} else if (matchesKey(data, "x")) {
			if (current && !isEnded(current.state)) this.confirming = current.id;
			else if (current) this.note = `${current.id} is ${current.state} already.`;
		} else if (matchesKey(data, "e")) {
			const run = current ? this.host.get(current.id) : undefined;
			if (run) this.explainPage = new TextPage((width) => runExplainLines(run, width, this.theme));
		} else if (matchesKey(data, "m") && this.host.mergeQueue) {
			this.runQueue(true);
		} else if (this.keys.matches(data, "tui.select.cancel") || matchesKey(data, "q")) {
			this.dispose();
			this.done();
			return;
		} else return;
		this.tui.requestRender();
	}

	/** The queue's page: scrolls; on its order `y` merges and anything else cancels; on its report Esc goes back. */
	private queueInput(data: string): void {
		const queue = this.queuePage as { page: TextPage; confirm: boolean };
		const move = scrollMove(data, this.keys);
		if (move) queue.page.scroll(move);
		else if (queue.confirm) {
			this.queuePage = null;
			if (matchesKey(data, "y")) this.runQueue(false);
			else this.note = "Nothing was merged.";
		} else if (this.keys.matches(data, "tui.select.cancel") || matchesKey(data, "q")) this.queuePage = null;
	}

	/** Runs the queue (`dryRun`: only its order, then asks) and shows what it said. */
	private runQueue(dryRun: boolean): void {
		const queue = this.host.mergeQueue;
		if (!queue) return;
		this.note = dryRun ? "Reading the merge queue…" : "Merging…";
		void queue(dryRun).then(
			({ text, branches }) => {
				this.note = "";
				this.queuePage = { page: new TextPage(textLines(dryRun && branches > 0 ? `${text}\n\nMerge them now? y merges, any other key cancels.` : text)), confirm: dryRun && branches > 0 };
				this.tui.requestRender();
			},
			(error: unknown) => this.settle(`The merge queue failed: ${error instanceof Error ? error.message : String(error)}`),
		);
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
