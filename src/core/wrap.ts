/**
 * Text fitted to a terminal's width (issue 19, ADR 0108): a line broken at spaces (a word longer
 * than the width is cut), continuation lines indented; a table whose widest columns are narrowed
 * until a row fits, each cell wrapped inside its column. Width null means "do not wrap" (output
 * that is not a terminal, unless COLUMNS says otherwise). Works on text already made safe.
 */

/** The narrowest a wrapped column or line gets. */
const MIN_WIDTH = 12;

/** `text` broken into lines of at most `width` characters; lines after the first start with `indent`. */
export function wrapLine(text: string, width: number | null, indent = ""): string[] {
	if (width === null || text.length <= width) return [text];
	const room = Math.max(MIN_WIDTH, width);
	const out: string[] = [];
	let line = "";
	const push = () => {
		out.push(line);
		line = indent;
	};
	for (const word of text.split(" ")) {
		let rest = word;
		const start = () => line === "" || line === indent;
		if (!start() && line.length + 1 + rest.length > room) push();
		while ((start() ? line.length : line.length + 1) + rest.length > room && rest.length > room - indent.length) {
			const cut = room - line.length - (start() ? 0 : 1);
			line += `${start() ? "" : " "}${rest.slice(0, cut)}`;
			rest = rest.slice(cut);
			push();
		}
		line += `${start() ? "" : " "}${rest}`;
	}
	if (line !== "" && line !== indent) out.push(line);
	return out;
}

/**
 * Rows as aligned columns (two spaces apart) fitting `width`: the widest column is narrowed, one
 * character at a time, until the rows fit or every column is at its floor; a cell longer than its
 * column continues on the next lines of the row. `style` is applied to each line of row 0.
 */
export function fitTable(rows: readonly string[][], width: number | null, style: (line: string) => string = (line) => line): string[] {
	const count = Math.max(0, ...rows.map((row) => row.length));
	const widths = Array.from({ length: count }, (_, i) => Math.max(0, ...rows.map((row) => row[i]?.length ?? 0)));
	if (width !== null) {
		const floors = widths.map((w, i) => Math.min(w, Math.max(MIN_WIDTH, ...rows.slice(0, 1).map((row) => row[i]?.length ?? 0))));
		const total = () => widths.reduce((sum, w) => sum + w, 0) + 2 * (count - 1);
		while (total() > width) {
			let widest = -1;
			widths.forEach((w, i) => {
				if (w > (floors[i] ?? 0) && (widest < 0 || w > (widths[widest] ?? 0))) widest = i;
			});
			if (widest < 0) break;
			widths[widest] = (widths[widest] ?? 1) - 1;
		}
	}
	const out: string[] = [];
	rows.forEach((row, r) => {
		const cells = widths.map((w, i) => wrapLine(row[i] ?? "", width === null ? null : w));
		const height = Math.max(1, ...cells.map((c) => c.length));
		for (let k = 0; k < height; k++) {
			const line = cells
				.map((c, i) => (i === count - 1 ? (c[k] ?? "") : (c[k] ?? "").padEnd(widths[i] ?? 0)))
				.join("  ")
				.trimEnd();
			out.push(r === 0 ? style(line) : line);
		}
	});
	return out;
}
