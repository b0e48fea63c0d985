/**
 * How wide the CLI's human output may be (ADR 0108): a terminal's own width; when stdout (or, for
 * stderr text, stderr) is not a terminal, `COLUMNS` if it holds a width, else no limit — piped
 * output keeps one line per item for grep and scripts.
 */
import type { CliIo } from "./io.ts";

/** The narrowest width honoured; a smaller terminal is treated as this wide. */
const MIN_COLUMNS = 40;

function fromEnv(env: NodeJS.ProcessEnv): number | null {
	const n = Number(env.COLUMNS?.trim());
	return Number.isInteger(n) && n > 0 ? Math.max(MIN_COLUMNS, n) : null;
}

/** The width of stdout text, or null: do not wrap. */
export function outWidth(io: CliIo): number | null {
	if (io.isTty && io.columns !== undefined && io.columns > 0) return Math.max(MIN_COLUMNS, io.columns);
	return fromEnv(io.env);
}

/** The width of stderr text (a refusal), or null: do not wrap. */
export function errWidth(io: CliIo): number | null {
	if (io.errTty && io.errColumns !== undefined && io.errColumns > 0) return Math.max(MIN_COLUMNS, io.errColumns);
	return fromEnv(io.env);
}
