/**
 * Scrolling in cadre's views (issue 24 items 1–3): which part of a list or a page fits the rows a
 * view has, the scroll keys every view shares (↑↓, PgUp/PgDn, Home/End) and the position line
 * (`lines 4–12 of 40 · 30%`). Pure functions over numbers; the views keep their own offset.
 */
import type { KeybindingsManager } from "@earendil-works/pi-tui";
import { matchesKey } from "@earendil-works/pi-tui";

/** A scroll key, as a move: by lines, by pages, or to an end. */
export type ScrollMove = { by: number } | { pages: number } | { to: "start" | "end" };

/** The move a key asks for, or null when it is not a scroll key. */
export function scrollMove(data: string, keys: KeybindingsManager): ScrollMove | null {
	if (keys.matches(data, "tui.select.up")) return { by: -1 };
	if (keys.matches(data, "tui.select.down")) return { by: 1 };
	if (keys.matches(data, "tui.select.pageUp") || matchesKey(data, "pageUp")) return { pages: -1 };
	if (keys.matches(data, "tui.select.pageDown") || matchesKey(data, "pageDown")) return { pages: 1 };
	if (matchesKey(data, "home")) return { to: "start" };
	if (matchesKey(data, "end")) return { to: "end" };
	return null;
}

/** `index` moved by `move` within `[0, count)`, a page being `page` steps. */
export function moved(index: number, move: ScrollMove, count: number, page: number): number {
	const last = Math.max(0, count - 1);
	const next = "to" in move ? (move.to === "start" ? 0 : last) : "by" in move ? index + move.by : index + move.pages * Math.max(1, page);
	return Math.min(last, Math.max(0, next));
}

/** The first shown line of a window of `room` lines over `total` that keeps `index` in view, moving `top` as little as it can. */
export function keepInView(top: number, index: number, room: number, total: number): number {
	const size = Math.max(1, room);
	let first = Math.min(top, index);
	if (index >= first + size) first = index - size + 1;
	return Math.max(0, Math.min(first, Math.max(0, total - size)));
}

/** The largest first line of a window of `room` lines over `total`. */
export function lastTop(room: number, total: number): number {
	return Math.max(0, total - Math.max(1, room));
}

/** `4–12 of 40 · 30%`: where a window of `shown` lines from `top` is in `total` (100% at the end). */
export function positionText(top: number, shown: number, total: number): string {
	if (total === 0) return "0 of 0";
	const end = Math.min(total, top + shown);
	const percent = total <= shown ? 100 : Math.round((end / total) * 100);
	return `${top + 1}–${end} of ${total} · ${percent}%`;
}
