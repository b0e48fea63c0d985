/**
 * A page of text that scrolls (issue 24 item 2): the explain page and the worktree report, from
 * the list and from the viewer. It opens at its top, ↑↓/PgUp/PgDn/Home/End move it, and its last
 * two lines are always the position (`── 1–8 of 30 · 27% ──`) and the key legend, so nothing that
 * says how to leave is ever cut off.
 */
import { type LegendItem, legendText } from "./legend.ts";
import { lastTop, moved, positionText, type ScrollMove } from "./scroll.ts";
import { fit, type Style } from "./text.ts";

/** The legend of a page. */
export const PAGE_LEGEND: LegendItem[] = [
	{ keys: "↑↓ pgup pgdn home end", label: "scroll", short: "", keep: false },
	{ keys: "esc", label: "back", keep: true },
];

/** A scrolling page over lines computed for a width. */
export class TextPage {
	private top = 0;
	private room = 1;
	private total = 0;
	private readonly body: (width: number) => string[];

	constructor(body: (width: number) => string[]) {
		this.body = body;
	}

	/** The page at `width` in at most `height` lines (at least 3: one body line, the position and the legend). */
	lines(width: number, height: number, style: Style, legend: readonly LegendItem[] = PAGE_LEGEND): string[] {
		const body = this.body(width);
		this.total = body.length;
		this.room = Math.max(1, height - 2);
		this.top = Math.min(this.top, lastTop(this.room, body.length));
		const shownLines = body.slice(this.top, this.top + this.room);
		const position = style.fg("muted", `── ${positionText(this.top, shownLines.length, body.length)} ──`);
		return [...shownLines, fit(position, width), fit(style.fg("dim", legendText(legend, width)), width)];
	}

	/** Scroll by a key's move. */
	scroll(move: ScrollMove): void {
		const last = lastTop(this.room, this.total);
		this.top = moved(this.top, move, last + 1, this.room);
	}
}
