/**
 * What `cadre run --batch` shows of each item besides its status line (issue 19): without
 * `--json`, the child's answer under its line, indented (escaped on a terminal, ADR 0075); with
 * `--out DIR`, one file per item instead (`line-<n>.md`: the answer, or why there is none), and the
 * status line says where.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join, resolve as resolvePath } from "node:path";
import { safeText } from "../../core/terminal-text.ts";
import { UsageError } from "./io.ts";

/** One item's end as the answers need it. */
export interface ItemEnd {
	line: number;
	status: string;
	/** The child's final answer (completed runs). */
	text: string | null;
	/** Why there is no answer (a refusal, an invalid line, a failed run). */
	why: string | null;
}

/** The answer lines printed under an item's status line: each line of the text, indented by two. */
export function answerLines(end: ItemEnd, escape: boolean): string[] {
	if (end.text === null || end.text.trim() === "") return [];
	const text = escape ? safeText(end.text) : end.text;
	return text.replace(/\n+$/, "").split("\n").map((line) => (line === "" ? "" : `  ${line}`));
}

/** Makes `--out DIR` (relative to `cwd`); a path that cannot be a folder is a usage error. */
export function outDir(dir: string, cwd: string): string {
	const path = resolvePath(cwd, dir);
	try {
		mkdirSync(path, { recursive: true });
	} catch (error) {
		throw new UsageError(`--out ${dir} cannot be made a folder: ${(error as Error).message}`);
	}
	return path;
}

/** Writes an item's file into `dir` and returns its path: the answer, else the status and why. */
export function writeItemFile(dir: string, end: ItemEnd): string {
	const path = join(dir, `line-${end.line}.md`);
	const body = end.text !== null && end.status === "completed" ? end.text : `${end.status}${end.why ? `: ${end.why}` : ""}`;
	writeFileSync(path, body.endsWith("\n") ? body : `${body}\n`);
	return path;
}
