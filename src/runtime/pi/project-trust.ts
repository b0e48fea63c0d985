/**
 * Whether cadre trusts a project's own files (its `.pi/subagents.json` and `.pi/agents|roles|personas/`):
 * the settings and keys only a trusted project may set (`verify`, `worktree.setup`, `sandbox: off`,
 * `sandbox.allowNetwork`, a raised `budget.ceiling`, `workspaces`).
 *
 * pi's own decision is the start, but pi trusts a project that holds nothing *pi* gates without
 * asking anyone — and cadre's files are not among pi's gated resources. So a cloned repository
 * whose only `.pi/` content is cadre's would be trusted by default: a fail-open. When pi's trust
 * rests on that default and the project holds cadre files, cadre asks for an explicit decision
 * instead: the user's stored one (pi's `/trust`, `trust.json`), else settings
 * `defaultProjectTrust: "always"`; else not trusted (ADR 0190).
 */
import { existsSync, statSync } from "node:fs";
import { join } from "node:path";
import { hasTrustRequiringProjectResources, ProjectTrustStore, SettingsManager } from "@earendil-works/pi-coding-agent";
import { findProjectDir, KIND_DIRS } from "../../files/discovery.ts";
import { racySince } from "../stat-key.ts";

/** Whether the project at `cwd` holds any of cadre's own files. */
export function hasCadreProjectFiles(cwd: string, agentDir: string, homeDir: string): boolean {
	const project = findProjectDir(cwd, agentDir, homeDir);
	if (project === null) return false;
	const pi = join(project, ".pi");
	return existsSync(join(pi, "subagents.json")) || Object.values(KIND_DIRS).some((dir) => existsSync(join(pi, dir)));
}

/** The user's explicit decision for `cwd`, read from pi: stored, else `defaultProjectTrust: "always"`; else not trusted. */
function readExplicitTrust(cwd: string, agentDir: string): boolean {
	const stored = new ProjectTrustStore(agentDir).get(cwd);
	if (stored !== null) return stored;
	return SettingsManager.create(cwd, agentDir, { projectTrusted: false }).getDefaultProjectTrust() === "always";
}

/** A file's stat as text ("-" when missing), and whether it changed too recently to be trusted unchanged. */
function fileStamp(path: string, since: bigint): { text: string; racy: boolean } {
	const s = statSync(path, { bigint: true, throwIfNoEntry: false });
	if (!s) return { text: "-", racy: false };
	return { text: `${s.ino}:${s.size}:${s.mtimeNs}:${s.ctimeNs}`, racy: s.mtimeNs >= since || s.ctimeNs >= since };
}

/** Decisions read, by cwd and agent dir, with the stat of the two files they come from. */
const decisions = new Map<string, { key: string; trusted: boolean }>();

/**
 * The user's explicit decision for `cwd`, read again only when `trust.json` or the user's
 * `settings.json` changed (their stat; a change within the racy window is read again next time):
 * pi reads both under a lock made in the agent dir, two writes there per spawn, and a change of
 * that folder that the files' cache takes for an edit (issue 28).
 */
function explicitTrust(cwd: string, agentDir: string): boolean {
	const id = `${cwd}\0${agentDir}`;
	const since = racySince();
	const stamps = [join(agentDir, "trust.json"), join(agentDir, "settings.json")].map((path) => fileStamp(path, since));
	const key = stamps.some((stamp) => stamp.racy) ? null : stamps.map((stamp) => stamp.text).join("|");
	const known = decisions.get(id);
	if (key !== null && known?.key === key) return known.trusted;
	const trusted = readExplicitTrust(cwd, agentDir);
	if (key === null) decisions.delete(id);
	else decisions.set(id, { key, trusted });
	return trusted;
}

/**
 * cadre's trust of the project at `cwd`, given pi's (`piTrusted`): never more than pi's; when pi
 * had nothing to ask about but the project holds cadre files, only an explicit decision trusts it.
 */
export function cadreProjectTrust(piTrusted: boolean, cwd: string, agentDir: string, homeDir: string): boolean {
	if (!piTrusted) return false;
	if (hasTrustRequiringProjectResources(cwd)) return true;
	if (!hasCadreProjectFiles(cwd, agentDir, homeDir)) return true;
	return explicitTrust(cwd, agentDir);
}

/** cadre's trust of a pi context's project (its cwd, pi's decision). */
export function contextTrust(ctx: { cwd: string; isProjectTrusted(): boolean }, agentDir: string, homeDir: string): boolean {
	return cadreProjectTrust(ctx.isProjectTrusted(), ctx.cwd, agentDir, homeDir);
}
