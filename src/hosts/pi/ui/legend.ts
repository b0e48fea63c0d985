/**
 * Key legends that shorten before they are cut (issue 24 item 4): each item has its keys, a label
 * and a shorter label; at a narrow width the short labels are used, then items that may go are
 * left out from the right, so the keys that leave a view (`esc back`) always show.
 */
import { fit, widthOf } from "./text.ts";

/** One key of a legend. */
export interface LegendItem {
	keys: string;
	label: string;
	/** The label when room is short (default: the label). */
	short?: string;
	/** Never left out (the key that leaves the view). */
	keep?: boolean;
}

const SEPARATOR = " · ";

function joined(items: readonly LegendItem[], short: boolean): string {
	return items.map((item) => `${item.keys} ${short ? (item.short ?? item.label) : item.label}`.trim()).join(SEPARATOR);
}

/** The legend at `width`: full, else short labels, else without the items that may go (from the right). */
export function legendText(items: readonly LegendItem[], width: number): string {
	const full = joined(items, false);
	if (widthOf(full) <= width) return full;
	let kept = [...items];
	for (;;) {
		const text = joined(kept, true);
		if (widthOf(text) <= width) return text;
		const drop = kept.map((item, index) => ({ item, index })).reverse().find(({ item }) => !item.keep);
		if (!drop) return fit(text, width);
		kept = kept.filter((_, index) => index !== drop.index);
	}
}
