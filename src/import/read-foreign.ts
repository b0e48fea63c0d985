/**
 * How `cadre import` reads another tool's file (and the files those point to): through cadre's one
 * scope-file reader (`readFileUnder`, ADR 0060) — a regular file, at most 1 MiB, confined to its
 * root: a project file by real path (a symlink out of the project is refused), a file in the
 * user's home as written (symlinks the user made there are followed). Everything a repository
 * holds is untrusted input.
 */
import { DEFAULT_MAX_FILE_BYTES, readFileUnder } from "../files/read-confined.ts";

export type ForeignRead = { ok: true; text: string } | { ok: false; why: string };

/** Reads `path` (absolute) if the reader lets it be read from `root` under `confine`. */
export function readForeignFile(path: string, root: string, confine: "project" | "user" = "project"): ForeignRead {
	const read = readFileUnder(path, { confine, root, maxBytes: DEFAULT_MAX_FILE_BYTES });
	if (read.ok) return { ok: true, text: read.text };
	return { ok: false, why: `it ${read.reason}` };
}
