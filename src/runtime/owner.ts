/**
 * Who owns a piece of cadre's on-disk state (a worktree lock, a persisted run record): the process
 * id, the process's start time and the host. A process id alone is not enough, since ids are reused
 * after a crash; the start time tells a live owner from a later process that got the same id. Used
 * to tell a run that is still going from one whose parent `pi` died (`interrupted`).
 */
import { readFileSync } from "node:fs";
import { hostname } from "node:os";

/** The process that owns a worktree lock or a run record. */
export interface Owner {
	pid: number;
	/**
	 * When the process started, as the kernel counts it (Linux: clock ticks since boot, field 22 of
	 * `/proc/<pid>/stat`), or null where that cannot be read (then only the pid is compared).
	 */
	start: string | null;
	host: string;
}

/** `alive`: the owner runs; `gone`: it does not (its work was interrupted); `unknown`: another host. */
export type OwnerState = "alive" | "gone" | "unknown";

/** The start time of process `pid`, or null when it cannot be read (no procfs, no such process). */
export function processStart(pid: number): string | null {
	let stat: string;
	try {
		stat = readFileSync(`/proc/${pid}/stat`, "utf8");
	} catch {
		return null;
	}
	// The command name (field 2) is in parentheses and may hold spaces and parentheses itself.
	const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
	// Fields after the name start at field 3, so field 22 (starttime) is index 19.
	return fields[19] ?? null;
}

let self: Owner | null = null;

/** This process as an owner. */
export function currentOwner(): Owner {
	self ??= { pid: process.pid, start: processStart(process.pid), host: hostname() };
	return { ...self };
}

function pidRuns(pid: number): boolean {
	try {
		process.kill(pid, 0);
		return true;
	} catch (error) {
		// EPERM: the process exists but belongs to someone else.
		return (error as NodeJS.ErrnoException).code === "EPERM";
	}
}

/** Whether `owner` still runs: same host, the pid runs, and it started when the owner did. */
export function ownerState(owner: Owner): OwnerState {
	if (owner.host !== hostname()) return "unknown";
	if (!Number.isInteger(owner.pid) || owner.pid <= 0 || !pidRuns(owner.pid)) return "gone";
	if (owner.start === null) return "alive";
	const start = processStart(owner.pid);
	return start === null || start === owner.start ? "alive" : "gone";
}

const PREFIX = "cadre-owner";

/** `owner` as one line (a `git worktree lock --reason`, a record field): `cadre-owner pid=… start=… host=…`. */
export function formatOwner(owner: Owner): string {
	return `${PREFIX} pid=${owner.pid} start=${owner.start ?? "-"} host=${encodeURIComponent(owner.host)}`;
}

/** The owner written by {@link formatOwner}, or null when `text` is not one (an older lock, a hand-made one). */
export function parseOwner(text: string | null | undefined): Owner | null {
	const match = /^cadre-owner pid=(\d+) start=(\S+) host=(\S+)$/.exec(text?.trim() ?? "");
	if (!match) return null;
	try {
		return { pid: Number(match[1]), start: match[2] === "-" ? null : (match[2] as string), host: decodeURIComponent(match[3] as string) };
	} catch {
		return null;
	}
}
