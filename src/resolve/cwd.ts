/**
 * The child's cwd (spec 02 "cwd"): the request's (against the parent's cwd) or the parent's. A
 * request cwd must be an existing directory, cannot go with a request `isolation: worktree`, and
 * with worktree isolation from a lower layer must lie inside the repository.
 */
import { isAbsolute, relative, resolve as resolvePath } from "node:path";
import type { IsolationMode } from "../core/values.ts";
import { displayPath } from "../files/discovery.ts";
import type { ResolutionContext } from "./context.ts";
import { derived, present, show, type Slot, toCandidate } from "./slots.ts";
import type { TraceEntry } from "./types.ts";

function inside(child: string, parent: string): boolean {
	const rel = relative(parent, child);
	return rel === "" || (!rel.startsWith("..") && !isAbsolute(rel));
}

/**
 * The cwd trace, given the isolation the spawn resolved to and the request's own isolation slot,
 * and the absolute directory the child starts in (before isolation).
 */
export function resolveCwd(ctx: ResolutionContext, isolation: { mode: IsolationMode; layer: string; request: Slot }): { trace: TraceEntry; absolute: string } {
	const trace = cwdTrace(ctx, isolation);
	const absolute = trace.layer === "request" ? resolvePath(ctx.input.parent.cwd, String(ctx.request.cwd)) : ctx.input.parent.cwd;
	return { trace, absolute };
}

function cwdTrace(ctx: ResolutionContext, isolation: { mode: IsolationMode; layer: string; request: Slot }): TraceEntry {
	const { request } = ctx;
	const { parent, loaded, reader } = ctx.input;
	const fallback = derived(displayPath(parent.cwd, loaded.projectDir), "parent", "parent");
	if (!present(request.cwd)) return fallback;
	const raw = request.cwd;
	if (typeof raw !== "string" || raw.trim() === "") {
		const slot = ctx.badRequest("cwd", "cwd", raw, "a directory path (relative to the parent's cwd)");
		return { ...fallback, candidates: [toCandidate(false)(slot)] };
	}
	const absolute = resolvePath(parent.cwd, raw);
	const reject = (why: string, valid: string): TraceEntry => {
		const message = `request cwd ${show(raw)} ${why}`;
		ctx.refusals.add("bad-request", message);
		ctx.diagnostics.add("cwd", { severity: "error", file: null, line: null, column: null, code: "bad-value", message, hint: valid });
		return { ...fallback, candidates: [{ layer: "request", value: raw, source: "request", outcome: "invalid" }] };
	};
	if (isolation.request.state === "named" && isolation.request.value === "worktree") {
		return reject("cannot be combined with request isolation \"worktree\": the child's cwd is inside its own worktree", "drop cwd, or drop isolation: worktree");
	}
	if (!reader.isDirectory(absolute)) {
		return reject(`is not an existing directory (resolved to ${absolute})`, "name an existing directory, relative to the parent's cwd");
	}
	if (isolation.mode === "worktree" && typeof parent.repoRoot === "string" && !inside(absolute, parent.repoRoot)) {
		// No repository at all is the worktree feasibility check's to report (a warning in explain;
		// the spawn fails closed), not a bad request.
		return reject(`(${absolute}) is outside the git repository, so it has no place in a worktree (isolation "worktree" from ${isolation.layer})`, "name a directory inside the repository, or request isolation: none");
	}
	return derived(displayPath(absolute, loaded.projectDir), "request", "request");
}
