/**
 * Settings `workspaces` (issue 25, ADR 0180): named SSH hosts a child's tools may run on. A
 * workspace is where cadre runs commands and connects with a key, so like `worktree.setup` it counts
 * from user settings or a trusted project only; an untrusted project's entry is an
 * `untrusted-setting` warning and never used. A later file's entry of the same name replaces the
 * earlier one whole (no field-by-field merge of hosts and keys).
 */
import { nameKey } from "../core/values.ts";
import type { Pos, RawField, RawValue } from "./raw.ts";
import type { WorkspaceSpec } from "./types.ts";

/** The keys of one workspace. */
export const WORKSPACE_KEYS = ["type", "host", "port", "user", "identityFile", "knownHosts", "root", "maxConcurrent", "graceSeconds"];

/** The name a definition uses for "no workspace": tools run on this machine. */
export const LOCAL_WORKSPACE = "local";

/** How the settings loader reports a problem (its own helpers). */
export interface WorkspaceSettingsHelpers {
	bad(val: RawValue, what: string, expects: string): void;
	untrusted(field: RawField, what: string): void;
	src(pos: Pos): string;
	unknown(field: RawField, known: string[], where: string): void;
}

const text = (val: RawValue): string | null => (typeof val.value === "string" && val.value.trim() !== "" ? val.value.trim() : null);
const whole = (val: RawValue, min: number, max: number): number | null =>
	typeof val.value === "number" && Number.isInteger(val.value) && val.value >= min && val.value <= max ? val.value : null;

/** One entry, or null (with a diagnostic) when a key is missing or invalid: a half-read host is never used. */
function readWorkspace(entry: RawField, h: WorkspaceSettingsHelpers): WorkspaceSpec | null {
	const what = `workspaces.${entry.key}`;
	if (!entry.val.fields) {
		h.bad(entry.val, what, "expects an object");
		return null;
	}
	const out: Partial<WorkspaceSpec> = { port: 22, maxConcurrent: 2, source: h.src(entry.keyPos) };
	let ok = true;
	for (const field of entry.val.fields) {
		const key = field.key;
		if (key === "type") {
			if (field.val.value === "ssh") out.type = "ssh";
			else ok = fail(h, field.val, `${what}.type`, "is not ssh (the only workspace type)");
		} else if (key === "port" || key === "maxConcurrent" || key === "graceSeconds") {
			const [min, max, expects] = key === "port" ? [1, 65535, "expects a port number"] : key === "maxConcurrent" ? [1, 64, "expects a whole number from 1 to 64"] : [1, 3600, "expects seconds from 1 to 3600"];
			const n = whole(field.val, min as number, max as number);
			if (n === null) ok = fail(h, field.val, `${what}.${key}`, expects as string);
			else out[key] = n;
		} else if (key === "host" || key === "user" || key === "identityFile" || key === "knownHosts" || key === "root") {
			const value = text(field.val);
			if (value === null) ok = fail(h, field.val, `${what}.${key}`, "expects text");
			else if ((key === "root" || key === "identityFile" || key === "knownHosts") && !value.startsWith("/") && !value.startsWith("~/")) ok = fail(h, field.val, `${what}.${key}`, "expects an absolute path");
			else out[key] = value;
		} else h.unknown(field, WORKSPACE_KEYS, what);
	}
	for (const key of ["type", "host", "user", "identityFile", "knownHosts", "root"] as const) {
		if (out[key] === undefined && ok) ok = fail(h, entry.val, what, `has no ${key}`);
	}
	return ok ? (out as WorkspaceSpec) : null;
}

function fail(h: WorkspaceSettingsHelpers, val: RawValue, what: string, expects: string): false {
	h.bad(val, what, expects);
	return false;
}

/** Applies one file's `workspaces` object over `out` (keyed by the case-folded name). */
export function applyWorkspaceSettings(entries: RawField[], source: { trusted: boolean }, out: Record<string, WorkspaceSpec>, h: WorkspaceSettingsHelpers): void {
	for (const entry of entries) {
		if (nameKey(entry.key) === LOCAL_WORKSPACE) {
			h.bad(entry.val, `workspaces.${entry.key}`, "uses the reserved name local (this machine)");
			continue;
		}
		if (!source.trusted) {
			h.untrusted(entry, `workspaces.${entry.key}`);
			continue;
		}
		const spec = readWorkspace(entry, h);
		if (spec) out[nameKey(entry.key)] = spec;
	}
}
