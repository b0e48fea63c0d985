/**
 * The live widget above pi's editor and the footer status (issue 11 item 1, ADR 0081): one row per
 * running run (background runs, or every run with `ui.widget: all`) — state icon, type,
 * description, turns (of `max_turns`), tool uses, tokens with context %, cost, running time and the
 * time it queued — and a second line with the current activity; finished rows linger a few seconds;
 * `N queued` at the bottom. The footer says `cadre: 2 running · 1 queued`. Rendering follows the
 * throttled {@link LiveFeed} (which also ticks each second while runs are live, so elapsed times
 * move and lingering rows go); nothing here runs on the spawn path.
 */
import type { Component, TUI } from "@earendil-works/pi-tui";
import type { RunRecord } from "../../../runtime/runs.ts";
import type { LiveFeed } from "./live-feed.ts";
import { LinesComponent } from "./lines-component.ts";
import { isEnded, type RunView, stateIcon, statsParts, viewOfRecord } from "./run-view.ts";
import { fit, flow, type Style, widthOf } from "./text.ts";

/** Settings `ui.widget`: which runs get rows. */
export type WidgetMode = "background" | "all" | "off";

/** How long a finished row stays (ms). */
export const LINGER_MS = 5000;
/** The most runs the widget lists; the rest are counted. */
export const MAX_WIDGET_ROWS = 8;
/** The key of cadre's widget and footer status in pi's UI. */
export const UI_KEY = "cadre";

/** What the widget shows at one moment. */
export interface WidgetSnapshot {
	/** Running runs first (oldest first), then the finished ones still lingering. */
	rows: RunView[];
	/** Queued runs in scope. */
	queued: number;
	/** Running runs in scope (including those beyond {@link MAX_WIDGET_ROWS}). */
	running: number;
}

/** The runs in scope for the mode: background ones, or all (`off` still scopes the footer count). */
function inScope(run: RunRecord, mode: WidgetMode): boolean {
	return mode === "all" || run.background;
}

/** What the widget shows of `runs` at `now`. */
export function widgetSnapshot(runs: readonly RunRecord[], mode: WidgetMode, now: number = Date.now(), lingerMs = LINGER_MS): WidgetSnapshot {
	const scoped = runs.filter((run) => inScope(run, mode));
	const running = scoped.filter((run) => run.state === "running").sort((a, b) => (a.startedAt ?? 0) - (b.startedAt ?? 0));
	const lingering = scoped
		.filter((run) => isEnded(run.state) && run.endedAt !== null && now - run.endedAt < lingerMs)
		.sort((a, b) => (a.endedAt ?? 0) - (b.endedAt ?? 0));
	return {
		rows: [...running, ...lingering].map((run) => viewOfRecord(run, now)),
		queued: scoped.filter((run) => run.state === "queued").length,
		running: running.length,
	};
}

/** The rows of one run: the headline, its stats (flowed onto more lines when narrow), its activity. */
export function runRows(view: RunView, width: number, style: Style): string[] {
	const head = `${stateIcon(view.state, style)} ${style.bold(view.type)} · ${view.description}`;
	const stats = statsParts(view);
	const oneLine = `${head}  ${style.fg("dim", stats.join(" · "))}`;
	const lines = widthOf(oneLine) <= width ? [oneLine] : [fit(head, width), ...flow(stats, width, "  ").map((line) => style.fg("dim", line))];
	if (view.activity !== null) lines.push(fit(`  ${style.fg("muted", `↳ ${view.activity}`)}`, width));
	if (view.error !== null && view.state === "failed") lines.push(fit(`  ${style.fg("error", view.error)}`, width));
	return lines;
}

/** The widget's lines at `width`; empty when there is nothing to show. */
export function widgetLines(snapshot: WidgetSnapshot, width: number, style: Style): string[] {
	const lines: string[] = [];
	for (const view of snapshot.rows.slice(0, MAX_WIDGET_ROWS)) lines.push(...runRows(view, width, style));
	const hidden = snapshot.rows.length - MAX_WIDGET_ROWS;
	if (hidden > 0) lines.push(fit(style.fg("muted", `… ${hidden} more`), width));
	if (snapshot.queued > 0) lines.push(fit(style.fg("muted", `${snapshot.queued} queued`), width));
	return lines;
}

/** The footer status, or undefined when nothing runs or waits. */
export function statusText(snapshot: Pick<WidgetSnapshot, "running" | "queued">): string | undefined {
	const parts = [snapshot.running > 0 ? `${snapshot.running} running` : "", snapshot.queued > 0 ? `${snapshot.queued} queued` : ""].filter(Boolean);
	return parts.length === 0 ? undefined : `cadre: ${parts.join(" · ")}`;
}

/** The part of pi's `ctx.ui` the widget uses. */
export interface WidgetUi {
	setWidget(key: string, content: ((tui: TUI, theme: Style) => Component) | undefined): void;
	setStatus(key: string, text: string | undefined): void;
}

/** Options for {@link createWidget}. */
export interface WidgetOptions {
	ui: WidgetUi;
	runs(): readonly RunRecord[];
	mode(): WidgetMode;
	feed: LiveFeed;
	now?(): number;
}

/** The widget controller: subscribes to the feed and keeps pi's widget and status up to date. */
export function createWidget(options: WidgetOptions): { dispose(): void } {
	const now = options.now ?? (() => Date.now());
	let snapshot: WidgetSnapshot = { rows: [], queued: 0, running: 0 };
	/** The widget is set in pi (its factory may not have run yet). */
	let shown = false;
	let component: LinesComponent | null = null;
	let tui: TUI | null = null;
	let status: string | undefined;

	const update = () => {
		const mode = options.mode();
		snapshot = widgetSnapshot(options.runs(), mode, now());
		const nextStatus = statusText(snapshot);
		if (nextStatus !== status) {
			status = nextStatus;
			options.ui.setStatus(UI_KEY, status);
		}
		const visible = mode !== "off" && (snapshot.rows.length > 0 || snapshot.queued > 0);
		if (!visible) {
			if (shown) options.ui.setWidget(UI_KEY, undefined);
			shown = false;
			component = null;
			tui = null;
			return;
		}
		if (shown) {
			component?.invalidate();
			tui?.requestRender();
			return;
		}
		shown = true;
		options.ui.setWidget(UI_KEY, (host, theme) => {
			tui = host;
			const created = new LinesComponent((width) => widgetLines(snapshot, width, theme));
			component = created;
			return created;
		});
	};

	const unsubscribe = options.feed.subscribe(update);
	update();
	return {
		dispose() {
			unsubscribe();
			try {
				if (shown) options.ui.setWidget(UI_KEY, undefined);
				if (status !== undefined) options.ui.setStatus(UI_KEY, undefined);
			} catch {
				// the session's UI may be gone already
			}
		},
	};
}
