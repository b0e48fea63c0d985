/**
 * Which earlier runs a parent session sees (ADR 0069): the runs recorded for this session id —
 * what `/resume`, `pi -c`, `pi --session` and `/reload` come back to — and, for a session forked
 * from another (`/fork`, `/clone`: pi's header names the session it came from), the runs its
 * ancestors created before the fork, since the forked conversation holds their ids. Never the
 * runs of other sessions in the same directory. An unpersisted session has no earlier runs.
 */
import { dirname } from "node:path";
import { type Diagnostic, formatDiagnostic } from "../../core/diagnostics.ts";
import { childrenDir } from "../../runtime/pi/parent-session.ts";
import { readFileUnder } from "../../files/read-confined.ts";
import { listRuns } from "../../runtime/run-reader.ts";
import type { RunRecord } from "../../runtime/runs.ts";

/** What this module reads of pi's session manager. */
export interface SessionFacts {
	getSessionFile(): string | undefined;
	getSessionDir(): string;
	getSessionId(): string;
	getHeader(): { id: string; timestamp: string; parentSession?: string } | null;
}

/** How far up a chain of forks earlier runs are looked for. */
const MAX_ANCESTORS = 8;
/** pi's session header is the first line of the session file; more than this is not one. */
const MAX_HEADER_BYTES = 64 * 1024;

interface Ancestor {
	id: string;
	file: string;
	/** When the child session was forked from it (epoch ms): its runs created later are not in the fork. */
	forkedAt: number;
}

/** The header of the session file at `file` (id, timestamp, parent), or null when it is not readable as one. */
function readHeader(file: string): { id: string; timestamp: string; parentSession?: string } | null {
	const read = readFileUnder(file, { confine: "any", root: "", maxBytes: MAX_HEADER_BYTES, head: true });
	if (!read.ok) return null;
	try {
		const header = JSON.parse(read.text.split("\n", 1)[0] ?? "") as Record<string, unknown>;
		if (header.type !== "session" || typeof header.id !== "string" || typeof header.timestamp !== "string") return null;
		return { id: header.id, timestamp: header.timestamp, parentSession: typeof header.parentSession === "string" ? header.parentSession : undefined };
	} catch {
		return null;
	}
}

/** The sessions this one was forked from, nearest first (bounded, cycle-safe). */
function ancestors(session: SessionFacts): Ancestor[] {
	const found: Ancestor[] = [];
	const seen = new Set([session.getSessionId()]);
	let header = session.getHeader();
	while (header?.parentSession && found.length < MAX_ANCESTORS) {
		const file = header.parentSession;
		const forkedAt = Date.parse(header.timestamp);
		const parent = readHeader(file);
		if (!parent || seen.has(parent.id) || Number.isNaN(forkedAt)) break;
		seen.add(parent.id);
		// A later fork point bounds nothing more than the nearer one did.
		const bound = found.length > 0 ? Math.min(forkedAt, (found[found.length - 1] as Ancestor).forkedAt) : forkedAt;
		found.push({ id: parent.id, file, forkedAt: bound });
		header = parent;
	}
	return found;
}

/** The runs a new extension instance of this parent session starts with, and the records it skipped. */
export function earlierRuns(session: SessionFacts): { runs: RunRecord[]; skipped: string[] } {
	if (!session.getSessionFile()) return { runs: [], skipped: [] };
	const runs = new Map<string, RunRecord>();
	const diagnostics: Diagnostic[] = [];
	const add = (loaded: ReturnType<typeof listRuns>) => {
		diagnostics.push(...loaded.diagnostics);
		for (const run of loaded.runs) if (!runs.has(run.id)) runs.set(run.id, run);
	};
	const id = session.getSessionId();
	add(listRuns(childrenDir(session.getSessionDir(), id), { parentSession: id }));
	for (const ancestor of ancestors(session)) {
		const dirs = new Set([childrenDir(dirname(ancestor.file), ancestor.id), childrenDir(session.getSessionDir(), ancestor.id)]);
		for (const dir of dirs) add(listRuns(dir, { parentSession: ancestor.id, createdBefore: ancestor.forkedAt }));
	}
	return { runs: [...runs.values()].sort((a, b) => a.createdAt - b.createdAt), skipped: diagnostics.map(formatDiagnostic) };
}
